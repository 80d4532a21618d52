#!/usr/bin/env python3
"""Writes a large QueryHotels response for the `sample` profile: deterministic,
UTF-8, with Chinese and Latin names, escaped characters and CDATA, so the
benchmarks parse what real services send.

usage: generate_response.py OUT [--records N] [--shape long|compact]

long: each record carries a description and more, about 860 bytes; compact:
six short fields (code, name, address, latitude, longitude, addtime), about
235 bytes, where the cost per record shows instead of the cost per byte.
"""
import argparse
import random

CITIES = [("Shanghai", 31.23, 121.47, "上海"), ("Beijing", 39.90, 116.40, "北京"),
          ("Paris", 48.85, 2.35, "Paris"), ("New York", 40.71, -74.00, "New York")]
LATIN = ["Grand", "Royal", "Garden", "Harbour", "Plaza", "Imperial", "Riverside", "Park", "Central", "Palace"]
CHINESE = ["锦江", "和平", "国际", "花园", "大酒店", "宾馆", "饭店", "外滩", "东方", "丽晶"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--records", type=int, default=110_000)
    parser.add_argument("--shape", choices=["long", "compact"], default="long")
    args = parser.parse_args()
    rng = random.Random(20261122)
    with open(args.out, "w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                  '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">\n'
                  '<soap:Body>\n<h:QueryHotelsResponse xmlns:h="urn:hotelkit:sample">\n')
        addtime = 1_800_000_000
        for index in range(args.records):
            city, lat, lon, local = CITIES[index % len(CITIES)]
            addtime -= rng.randint(1, 90)
            if index % 3 == 0:
                name = local + "".join(rng.choice(CHINESE) for _ in range(3))
            else:
                name = f"{rng.choice(LATIN)} {rng.choice(LATIN)} Hotel &amp; Suites {city}"
            address = f"{rng.randint(1, 999)} {rng.choice(LATIN)} Road, {city}, District {rng.randint(1, 30)}"
            if index % 7 == 0:
                address = f"<![CDATA[{address} <Tower B>]]>"
            if args.shape == "compact":
                out.write(
                    f"<h:Hotel><h:code>H{index:07d}</h:code><h:name>{rng.choice(LATIN)} {rng.choice(LATIN)} Hotel</h:name>"
                    f"<h:address>{rng.randint(1, 999)} {rng.choice(LATIN)} Road</h:address>"
                    f"<h:latitude>{lat + rng.uniform(-0.2, 0.2):.6f}</h:latitude>"
                    f"<h:longitude>{lon + rng.uniform(-0.2, 0.2):.6f}</h:longitude>"
                    f"<h:addtime>{addtime}</h:addtime></h:Hotel>\n")
                continue
            ext = "png" if index % 2 else "jpg"
            out.write(
                f"<h:Hotel><h:code>H{index:07d}</h:code><h:name>{name}</h:name>"
                f"<h:address>{address}</h:address>"
                f"<h:latitude>{lat + rng.uniform(-0.2, 0.2):.6f}</h:latitude>"
                f"<h:longitude>{lon + rng.uniform(-0.2, 0.2):.6f}</h:longitude>"
                f"<h:logoURL>http://127.0.0.1:8080/logos/H{index:07d}.{ext}</h:logoURL>"
                f"<h:addtime>{addtime}</h:addtime>"
                f"<h:rating>{rng.randint(1, 5)}</h:rating><h:phone>+86-21-{rng.randint(1000000, 9999999)}</h:phone>"
                f"<h:description>Rooms {rng.randint(20, 900)}, breakfast {'included' if index % 2 else 'extra'}, "
                f"check-in from 14:00, {rng.choice(LATIN).lower()} view</h:description></h:Hotel>\n")
        out.write(f"<h:lastAddTime>{addtime}</h:lastAddTime>\n</h:QueryHotelsResponse>\n</soap:Body>\n</soap:Envelope>\n")


if __name__ == "__main__":
    main()
