#!/usr/bin/env python3
"""A standard SOAP client (zeep) reads the sample service's WSDL and calls
QueryHotels; prints what it got as JSON. usage: zeep_query.py WSDL_URL CITY PAGE_SIZE [BEFORE]"""
import json
import sys

from zeep import Client


def main():
    client = Client(sys.argv[1])
    arguments = {"city": sys.argv[2], "pageSize": int(sys.argv[3])}
    if len(sys.argv) > 4:
        arguments["before"] = sys.argv[4]
    result = client.service.QueryHotels(**arguments)
    hotels = [{"code": h.code, "name": h.name, "addtime": h.addtime, "latitude": h.latitude} for h in (result.Hotel or [])]
    print(json.dumps({"hotels": hotels, "lastAddTime": result.lastAddTime}, ensure_ascii=False))


if __name__ == "__main__":
    main()
