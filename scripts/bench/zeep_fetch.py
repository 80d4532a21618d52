#!/usr/bin/env python3
"""Python zeep fetching a city page by page from the sample service, as
`hotels fetch` does (cursor = addtime of the last row), building the records.

usage: zeep_fetch.py WSDL_URL CITY PAGE_SIZE MAX_PAGES"""
import json
import sys

from zeep import Client


def main():
    wsdl, city, size, pages = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    client = Client(wsdl)
    before, count = None, 0
    for _ in range(pages):
        arguments = {"city": city, "pageSize": size}
        if before is not None:
            arguments["before"] = str(before)
        result = client.service.QueryHotels(**arguments)
        hotels = result.Hotel or []
        records = [{"code": h.code, "name": h.name, "address": h.address, "latitude": h.latitude,
                    "longitude": h.longitude, "logoURL": h.logoURL, "addtime": h.addtime} for h in hotels]
        count += len(records)
        if not records or records[-1]["addtime"] == result.lastAddTime:
            break
        before = records[-1]["addtime"]
    print(json.dumps({"hotels": count}))


if __name__ == "__main__":
    main()
