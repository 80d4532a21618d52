#!/usr/bin/env python3
"""Python lxml iterparse building the same records as `hotels parse` with the
`sample` profile, in constant memory (elements cleared as they are done)."""
import sys
from urllib.parse import urlsplit

from lxml import etree

NS = "{urn:hotelkit:sample}"
FIELDS = {NS + name: name for name in ("code", "name", "address", "latitude", "longitude", "logoURL", "addtime")}


def number(text, kind):
    try:
        return kind(text)
    except (TypeError, ValueError):
        return None


def main(path):
    count = 0
    for _, element in etree.iterparse(path, events=("end",), tag=NS + "Hotel", resolve_entities=False, no_network=True):
        record = {}
        for child in element:
            name = FIELDS.get(child.tag)
            if name:
                record[name] = (child.text or "").strip() or None
        record["latitude"] = number(record.get("latitude"), float)
        record["longitude"] = number(record.get("longitude"), float)
        record["addtime"] = number(record.get("addtime"), int)
        logo = record.get("logoURL")
        if logo and urlsplit(logo).scheme not in ("http", "https"):
            record["logoURL"] = None
        if record.get("code"):
            count += 1
        element.clear()
        while element.getprevious() is not None:
            del element.getparent()[0]
    print('{"records": %d}' % count)


if __name__ == "__main__":
    main(sys.argv[1])
