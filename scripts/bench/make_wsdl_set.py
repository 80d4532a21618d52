#!/usr/bin/env python3
"""Writes a synthetic WSDL set for timing `hotels profile inspect|init` (BENCHMARKS.md, "WSDL inspect and init").

The set is the size of OpenTravel's whole schema folder (about 15 MB): a WSDL
whose one operation, Search, imports SCHEMAS schemas of TYPES complex types
each, every schema including the next, as OTA's common types include each other.

    scripts/bench/make_wsdl_set.py OUT_FOLDER [SCHEMAS] [TYPES]
"""
import os
import sys

out = sys.argv[1]
schemas = int(sys.argv[2]) if len(sys.argv) > 2 else 200
types = int(sys.argv[3]) if len(sys.argv) > 3 else 50
namespace = "urn:bench"
os.makedirs(os.path.join(out, "xsd"), exist_ok=True)

for index in range(schemas):
    lines = [f'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="{namespace}" '
             f'targetNamespace="{namespace}" elementFormDefault="qualified">']
    if index + 1 < schemas:
        lines.append(f'  <xs:include schemaLocation="types{index + 1}.xsd"/>')
    for number in range(types):
        lines.append(f'  <xs:complexType name="Type{index}_{number}"><xs:sequence>')
        for field in range(8):
            lines.append(f'    <xs:element name="Field{field}" type="xs:string" minOccurs="0"><xs:annotation>'
                         f'<xs:documentation>Field {field} of type {number} in schema {index}.</xs:documentation>'
                         f'</xs:annotation></xs:element>')
        lines.append('  </xs:sequence><xs:attribute name="Code" type="xs:string"/></xs:complexType>')
    if index == 0:
        lines.append('  <xs:element name="SearchRQ"><xs:complexType><xs:sequence>'
                     '<xs:element name="CityName" type="xs:string"/></xs:sequence>'
                     '<xs:attribute name="MaxResponses" type="xs:positiveInteger"/></xs:complexType></xs:element>')
        lines.append('  <xs:element name="SearchRS"><xs:complexType><xs:sequence>'
                     '<xs:element name="Property" maxOccurs="unbounded"><xs:complexType><xs:sequence>'
                     '<xs:element name="Detail" type="tns:Type0_0" minOccurs="0"/></xs:sequence>'
                     '<xs:attribute name="HotelCode"/><xs:attribute name="HotelName"/></xs:complexType></xs:element>'
                     '</xs:sequence></xs:complexType></xs:element>')
    lines.append('</xs:schema>')
    with open(os.path.join(out, "xsd", f"types{index}.xsd"), "w") as file:
        file.write("\n".join(lines) + "\n")

with open(os.path.join(out, "service.wsdl"), "w") as file:
    file.write(f'''<?xml version="1.0"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="{namespace}" targetNamespace="{namespace}">
  <wsdl:types><xs:schema targetNamespace="{namespace}/imports"><xs:import namespace="{namespace}" schemaLocation="xsd/types0.xsd"/></xs:schema></wsdl:types>
  <wsdl:message name="In"><wsdl:part name="parameters" element="tns:SearchRQ"/></wsdl:message>
  <wsdl:message name="Out"><wsdl:part name="parameters" element="tns:SearchRS"/></wsdl:message>
  <wsdl:portType name="Port"><wsdl:operation name="Search"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
  <wsdl:binding name="Binding" type="tns:Port"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <wsdl:operation name="Search"><soap:operation soapAction="urn:bench#Search"/>
      <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
  </wsdl:binding>
  <wsdl:service name="Bench"><wsdl:port name="P" binding="tns:Binding"><soap:address location="http://127.0.0.1:9/bench"/></wsdl:port></wsdl:service>
</wsdl:definitions>
''')
