#!/usr/bin/env python3
"""A synthetic world of hotels as N suppliers see it, with the truth, for the
matching benchmark of issue 47 (`scripts/compare match`).

usage: match_world.py RECORDS.jsonl [--suppliers 5] [--per-supplier 2000] [--seed 47]
                      [--truth TRUTH.jsonl] [--hard-cases HARD.jsonl]

RECORDS.jsonl: one record a line, HotelKit's Hotel JSON plus "supplier" (1..N):
  {"supplier": 2, "code": "...", "name": ..., "address": ..., "latitude": ...,
   "longitude": ..., "phone": ..., "postalCode": ..., "city": ..., "countryCode": ...,
   "chainCode": ..., "rating": ..., "references": {"giata": "..."} | null}
TRUTH.jsonl: {"supplier": 2, "code": "...", "hotel": "H123"} per record.
HARD.jsonl: {"case": "sibling-brands", "records": [{"supplier": 1, "code": "..."}, ...]}:
  the records of the hotels of one hard case (their cross pairs must stay apart).

Each supplier lists about 80% of the world's hotels, with habits of its own
(case, abbreviations, token order, phone forms, missing fields) plus noise:
coordinate jitter up to 300 m, a few swapped or 0,0 positions, one-character
typos, and about 1% duplicates within the supplier under a second code. Every
city holds the issue's hard cases: sibling brands at one address, two hotels of
one complex (one address, one switchboard), one brand twice a few hundred
metres apart with names one landmark word apart, and generic names.

Generation is deterministic for a seed and streams: 5 x 200,000 records take
well under a minute and little memory.
"""
import argparse
import json
import math
import random

COVERAGE = 0.8          # the share of the world's hotels each supplier lists
HOTELS_PER_CITY = 400

BRANDS = [  # (brand, chain code); siblings share a chain code's first letters
    ("Ibis", "IB"), ("Ibis Styles", "IS"), ("Ibis Budget", "IU"),
    ("Novotel", "NO"), ("Mercure", "ME"), ("Pullman", "PU"),
    ("Holiday Inn", "HI"), ("Holiday Inn Express", "HX"),
    ("Marriott", "MC"), ("Courtyard by Marriott", "CY"),
    ("Hilton", "HH"), ("Hilton Garden Inn", "GI"), ("DoubleTree by Hilton", "DT"),
    ("Hampton by Hilton", "HP"), ("Best Western", "BW"), ("Best Western Plus", "BP"),
    ("Radisson", "RD"), ("Radisson Blu", "RB"), ("Premier Inn", "PI"), ("Motel One", "MO"),
]
LANDMARKS = ["Airport", "Centre", "Gare du Nord", "Old Town", "Riverside", "Opéra", "Central Station",
             "Harbour", "Cathedral", "Park", "Convention Centre", "North", "South", "East", "West",
             "Downtown", "Bay", "Market Square", "University", "Exhibition", "Castle", "Stadium",
             "Bahnhof", "Königsallee", "Porte Maillot", "Montparnasse", "Tower", "Marina", "Plaza", "Bridge"]
GENERIC = ["Grand Hotel", "Hotel Central", "City Hotel", "Park Hotel", "Hotel Europa", "Plaza Hotel",
           "Hotel Royal", "Hotel Excelsior", "Hotel Continental", "Hotel Bellevue"]
SYLLABLES = ["a", "ba", "bel", "ca", "cor", "da", "del", "el", "fio", "gran", "ha", "is", "ka", "la",
             "lor", "ma", "mon", "na", "nor", "o", "pa", "ri", "ro", "sa", "san", "ta", "ter", "va",
             "vil", "za", "lé", "mü", "ço", "ste", "ven", "ari", "ton", "ber", "lin", "qua"]
INDEPENDENT = ["Hotel {w}", "{w} Hotel", "{w} Inn", "Villa {w}", "{w} Palace", "{w} Suites",
               "Residence {w}", "{w} Lodge", "Hôtel {w} & Spa", "The {w}", "{w} {v} Hotel", "Casa {w}"]
STREET_TYPES = [("Street", ["St.", "St", "Str"]), ("Avenue", ["Av.", "Ave", "Av"]),
                ("Road", ["Rd", "Rd."]), ("Boulevard", ["Blvd", "Bd"]), ("Rue", ["R.", "R"]),
                ("Straße", ["Str.", "Strasse"]), ("Square", ["Sq"]), ("Lane", ["Ln"])]
COUNTRIES = [("FR", "33"), ("DE", "49"), ("GB", "44"), ("ES", "34"), ("IT", "39"), ("US", "1"),
             ("PT", "351"), ("NL", "31"), ("AT", "43"), ("BR", "55")]


def word(rng, syllables=None):
    w = "".join(rng.choice(SYLLABLES) for _ in range(syllables or rng.choice((2, 2, 3, 3, 4))))
    return w[:1].upper() + w[1:]


def offset(lat, lon, metres, rng):
    """lat, lon moved `metres` in a random direction."""
    angle = rng.random() * 2 * math.pi
    dlat = metres * math.cos(angle) / 111_320
    dlon = metres * math.sin(angle) / (111_320 * max(0.2, math.cos(math.radians(lat))))
    return lat + dlat, lon + dlon


class City:
    def __init__(self, index, rng):
        self.name = word(rng, 3) + ("" if index % 3 else " " + rng.choice(["City", "Nord", "am Main", "Bay"]))
        self.country, self.dialling = COUNTRIES[index % len(COUNTRIES)]
        self.lat = rng.uniform(-45, 60)
        self.lon = rng.uniform(-120, 150)
        self.area = str(rng.randint(1, 9))
        self.postal = str(10 + index % 89)
        self.streets = [(word(rng), rng.choice(STREET_TYPES)) for _ in range(60)]


def base_hotel(hid, city, rng):
    lat, lon = offset(city.lat, city.lon, abs(rng.gauss(0, 3000)), rng)
    street, kind = rng.choice(city.streets)
    roll = rng.random()
    chain = None
    if roll < 0.40:
        brand, chain = rng.choice(BRANDS)
        name = f"{brand} {city.name} {rng.choice(LANDMARKS)}" if rng.random() < 0.8 else f"{brand} {rng.choice(LANDMARKS)}"
    elif roll < 0.95:
        name = rng.choice(INDEPENDENT).format(w=word(rng), v=word(rng))
    else:
        name = rng.choice(GENERIC)
    return {
        "hotel": hid, "name": name, "number": str(rng.randint(1, 240)), "street": street, "kind": kind,
        "lat": lat, "lon": lon, "city": city.name, "country": city.country, "dialling": city.dialling,
        "phone": city.area + "".join(str(rng.randint(0, 9)) for _ in range(8)),
        "postal": city.postal + f"{rng.randint(0, 20):03d}", "chain": chain,
        "rating": rng.choice([2, 3, 3, 4, 4, 4, 5]),
        "giata": str(100_000 + int(hid[1:]) * 7) if rng.random() < 0.85 else None,
    }


def hard_cases(next_id, city, rng):
    """The issue's hard cases in one city: [(case, [hotel, ...]), ...]."""
    cases = []
    # Sibling brands in one building: one address, one switchboard prefix.
    a = base_hotel(next_id(), city, rng)
    a.update(name=f"Ibis {city.name} {rng.choice(LANDMARKS)}", chain="IB")
    b = dict(a, hotel=next_id(), name=a["name"].replace("Ibis", "Ibis Styles", 1), chain="IS",
             phone=a["phone"][:-2] + f"{rng.randint(0, 99):02d}", giata=str(900_000 + rng.randint(0, 10**6)))
    cases.append(("sibling-brands", [a, b]))
    # Two hotels of one complex: one address, switchboard differs in the last two digits.
    c = base_hotel(next_id(), city, rng)
    c.update(name=f"Pullman {city.name} {rng.choice(LANDMARKS)}", chain="PU")
    d = dict(c, hotel=next_id(), name=c["name"].replace("Pullman", "Mercure", 1), chain="ME",
             phone=c["phone"][:-2] + f"{(int(c['phone'][-2:]) + 1) % 100:02d}", giata=str(900_000 + rng.randint(0, 10**6)))
    cases.append(("one-complex", [c, d]))
    # One brand twice, 300-600 m apart, names one landmark word apart.
    e = base_hotel(next_id(), city, rng)
    first, second = rng.sample(LANDMARKS, 2)
    e.update(name=f"Novotel {city.name} Centre {first}", chain="NO")
    f = base_hotel(next_id(), city, rng)
    f.update(name=f"Novotel {city.name} Centre {second}", chain="NO", street=e["street"], kind=e["kind"])
    f["lat"], f["lon"] = offset(e["lat"], e["lon"], rng.uniform(300, 600), rng)
    cases.append(("same-brand-nearby", [e, f]))
    # Generic names across the city.
    generic = rng.choice(GENERIC)
    hotels = []
    for _ in range(3):
        g = base_hotel(next_id(), city, rng)
        g.update(name=generic, chain=None)
        hotels.append(g)
    cases.append(("generic-names", hotels))
    return cases


def typo(text, rng):
    if not text or len(text) < 4:
        return text
    i = rng.randrange(1, len(text) - 1)
    op = rng.random()
    if op < 0.33:
        return text[:i] + text[i + 1:]
    if op < 0.66:
        return text[:i] + text[i + 1] + text[i] + text[i + 2:]
    return text[:i] + rng.choice("aeiounrst") + text[i + 1:]


def unaccent(text):
    import unicodedata
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def phone_form(h, habit, rng):
    n = h["phone"]
    cc = h["dialling"]
    if habit == 1:
        return f"+{cc} {n[0]} {n[1:3]} {n[3:5]} {n[5:7]} {n[7:]}"
    if habit == 2:
        return f"+{cc}{n}"
    if habit == 3:
        return f"0{n[0]} {n[1:3]} {n[3:5]} {n[5:7]} {n[7:]}"
    if habit == 4:
        return f"00{cc} {n[0]} {n[1:5]} {n[5:]}"
    return f"({cc}) {n[:3]}-{n[3:6]}-{n[6:]}"


def view(h, supplier, code, rng):
    """Hotel h as supplier 1..5 (habits repeat for more suppliers) lists it."""
    habit = (supplier - 1) % 5 + 1
    street, (kind, abbreviations) = h["street"], h["kind"]
    name = h["name"]
    if habit == 1:
        address = f"{h['number']} {street} {kind}"
    elif habit == 2:
        brand_first = name.split(" ")
        if h["chain"] and len(brand_first) > 2:  # "MARRIOTT - PARIS CHAMPS ELYSEES"
            name = brand_first[0] + " - " + " ".join(brand_first[1:])
        name = unaccent(name).upper()
        address = unaccent(f"{h['number']} {street} {rng.choice(abbreviations)} {h['postal']} {h['city']}").upper()
    elif habit == 3:
        tokens = [t for t in name.split(" ") if t.lower() not in ("hotel", "hôtel")] or name.split(" ")
        if len(tokens) > 2 and rng.random() < 0.5:
            tokens = tokens[1:] + tokens[:1]
        name = " ".join(tokens)
        address = f"{h['number']}, {street.lower()} {kind.lower()}"
    elif habit == 4:
        name = name if "hotel" in name.lower() else name + " Hotel"
        address = f"{street} {rng.choice(abbreviations)} {h['number']}"
    else:
        name = unaccent(name).lower().replace(" ", "-" if rng.random() < 0.3 else " ")
        address = f"{h['number']} {street} {rng.choice(abbreviations)}".lower()
    if rng.random() < 0.05:
        name = typo(name, rng)
    if rng.random() < 0.03:
        address = typo(address, rng)
    lat, lon = offset(h["lat"], h["lon"], rng.uniform(0, 300), rng)
    lat, lon = round(lat, 6), round(lon, 6)
    position = rng.random()
    if position < (0.04 if habit == 5 else 0.01):
        lat, lon = 0.0, 0.0
    elif position < 0.06 and habit == 4:
        lat, lon = lon, lat
    elif position < 0.08:
        lat = lon = None
    record = {
        "supplier": supplier, "code": code, "name": name,
        "address": None if rng.random() < (0.2 if habit == 4 else 0.04) else address,
        "latitude": lat, "longitude": lon,
        "phone": None if rng.random() < (0.3 if habit == 5 else 0.07) else phone_form(h, habit, rng),
        "postalCode": None if habit in (2, 4) or rng.random() < 0.05 else h["postal"],
        "city": h["city"].upper() if habit == 2 else h["city"],
        "countryCode": h["country"],
        "chainCode": h["chain"] if habit in (1, 2, 4) else None,
        "rating": None if habit == 2 else h["rating"] - (0.5 if habit == 4 and rng.random() < 0.2 else 0),
        "references": {"giata": h["giata"]} if h["giata"] and habit in (1, 2) and rng.random() < 0.9 else None,
    }
    return record


def generate(suppliers=5, per_supplier=2000, seed=47):
    """Yields (record, truth, hard_case_or_None) per record; hard_case is the case name
    and its group id when the record's hotel belongs to one."""
    rng = random.Random(seed)
    world_size = max(20, int(per_supplier / COVERAGE))
    counter = [0]

    def next_id():
        counter[0] += 1
        return f"H{counter[0]}"

    hotels, groups = [], {}
    city_index = 0
    while len(hotels) < world_size:
        city = City(city_index, rng)
        for case, members in hard_cases(next_id, city, rng):
            group = f"{case}#{city_index}"
            for h in members:
                groups[h["hotel"]] = (case, group)
                hotels.append(h)
        for _ in range(min(HOTELS_PER_CITY, world_size - len(hotels))):
            hotels.append(base_hotel(next_id(), city, rng))
        city_index += 1
    for supplier in range(1, suppliers + 1):
        srng = random.Random(seed * 1000 + supplier)
        listed = [h for h in hotels if srng.random() < COVERAGE]
        srng.shuffle(listed)
        for number, h in enumerate(listed[:per_supplier]):
            copies = 2 if srng.random() < 0.01 else 1
            for copy in range(copies):
                code = f"S{supplier}-{number:07d}" + ("-B" if copy else "")
                record = view(h, supplier, code, srng)
                yield record, {"supplier": supplier, "code": code, "hotel": h["hotel"]}, groups.get(h["hotel"])


def write(records_path, truth_path=None, hard_path=None, suppliers=5, per_supplier=2000, seed=47):
    hard = {}
    count = 0
    truth = open(truth_path, "w") if truth_path else None
    with open(records_path, "w") as out:
        for record, true, group in generate(suppliers, per_supplier, seed):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            if truth:
                truth.write(json.dumps(true) + "\n")
            if group:
                hard.setdefault(group, []).append({"supplier": true["supplier"], "code": true["code"]})
            count += 1
    if truth:
        truth.close()
    if hard_path:
        with open(hard_path, "w") as out:
            for (case, _), members in sorted(hard.items(), key=lambda item: item[0][1]):
                out.write(json.dumps({"case": case, "records": members}) + "\n")
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records")
    parser.add_argument("--suppliers", type=int, default=5)
    parser.add_argument("--per-supplier", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--truth")
    parser.add_argument("--hard-cases")
    args = parser.parse_args()
    count = write(args.records, args.truth, args.hard_cases, args.suppliers, args.per_supplier, args.seed)
    print(json.dumps({"records": count, "suppliers": args.suppliers}))


if __name__ == "__main__":
    main()
