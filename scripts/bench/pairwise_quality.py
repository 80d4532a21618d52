#!/usr/bin/env python3
"""Pairwise precision, recall and F1 of a clustering against the truth, for the
matching benchmark of issue 47 (`scripts/compare match`).

usage: pairwise_quality.py CLUSTERS.jsonl --truth TRUTH.jsonl [--hard-cases HARD.jsonl]

CLUSTERS.jsonl: {"supplier": ..., "code": "...", "cluster": <any id>} per record.
TRUTH.jsonl:    {"supplier": ..., "code": "...", "hotel": <true id>} per record.
HARD.jsonl:     {"case": "sibling-brands", "records": [{"supplier": ..., "code": ...}, ...]}
                per group of records that must not all be merged.
A supplier is compared as text, so 3 and "3" are one supplier, as are
"<profile>@<endpoint>" strings. A record in one file and not the other counts as
a singleton where it is missing, and the number of such records is printed.

Prints one JSON object: the pair counts (a pair is two records; a predicted
pair is two records in one cluster, a true pair two records of one hotel),
precision = TP / predicted, recall = TP / true, F1; the within-supplier
duplicates (true pairs whose records come from one supplier) and how many of
them were found; and with --hard-cases, per case, the predicted pairs inside
its groups, how many of those are true (precision) and how many true pairs
inside them were found.

Pairs are counted per cluster, per hotel and per (cluster, hotel) cell by
n·(n−1)/2, never listed: 1,010,179 records (5 x 200,000 and their duplicates)
took 109 s and 577 MB peak RSS on this 2-core machine while other builds ran
(load average 10); memory is a few dictionaries keyed by record.
"""
import argparse
import json
import sys
from collections import Counter


def key(row):
    return f"{row['supplier']}\t{row['code']}"


def read_labels(path, field):
    """{record key: label} from JSON Lines; a record listed twice keeps its first label."""
    labels = {}
    with open(path) as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                labels.setdefault(sys.intern(key(row)), row[field])
            except (ValueError, KeyError) as error:
                raise SystemExit(f"{path}:{number}: not a record with supplier, code and {field}: {error}")
    return labels


def pairs(n):
    return n * (n - 1) // 2


def quality(predicted, truth):
    """The pair counts of predicted ({key: cluster}) against truth ({key: hotel})."""
    only_predicted = sum(1 for k in predicted if k not in truth)
    only_truth = sum(1 for k in truth if k not in predicted)
    # A record missing on one side is a singleton there: a label no other record has.
    cluster = lambda k: predicted.get(k, ("missing", k))
    hotel = lambda k: truth.get(k, ("missing", k))
    keys = set(predicted) | set(truth) if only_predicted or only_truth else truth.keys()
    clusters, hotels, cells = Counter(), Counter(), Counter()
    same_supplier_true, same_supplier_found = Counter(), Counter()
    for k in keys:
        c, h = cluster(k), hotel(k)
        clusters[c] += 1
        hotels[h] += 1
        cells[(c, h)] += 1
        supplier = k.split("\t", 1)[0]
        same_supplier_true[(supplier, h)] += 1
        same_supplier_found[(supplier, h, c)] += 1
    tp = sum(pairs(n) for n in cells.values())
    predicted_pairs = sum(pairs(n) for n in clusters.values())
    true_pairs = sum(pairs(n) for n in hotels.values())
    precision = tp / predicted_pairs if predicted_pairs else 1.0
    recall = tp / true_pairs if true_pairs else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    duplicates = sum(pairs(n) for n in same_supplier_true.values())
    duplicates_found = sum(pairs(n) for n in same_supplier_found.values())
    return {
        "records": len(keys), "clusters": len(clusters), "hotels": len(hotels),
        "precision": round(precision, 6), "recall": round(recall, 6), "f1": round(f1, 6),
        "tp": tp, "fp": predicted_pairs - tp, "fn": true_pairs - tp,
        "predicted_pairs": predicted_pairs, "true_pairs": true_pairs,
        "within_supplier_duplicate_pairs": duplicates, "within_supplier_duplicates_found": duplicates_found,
        "within_supplier_recall": round(duplicates_found / duplicates, 6) if duplicates else None,
        "only_in_clusters": only_predicted, "only_in_truth": only_truth,
    }


def hard_case_quality(path, predicted, truth):
    """Per case name: predicted and true pairs inside each group of its records."""
    cases = {}
    with open(path) as lines:
        for line in lines:
            if not line.strip():
                continue
            group = json.loads(line)
            members = [key(r) for r in group["records"]]
            clusters, hotels, cells = Counter(), Counter(), Counter()
            for k in members:
                c, h = predicted.get(k, ("missing", k)), truth.get(k, ("missing", k))
                clusters[c] += 1
                hotels[h] += 1
                cells[(c, h)] += 1
            tp = sum(pairs(n) for n in cells.values())
            total = cases.setdefault(group["case"], {"groups": 0, "predicted_pairs": 0, "tp": 0, "true_pairs": 0})
            total["groups"] += 1
            total["predicted_pairs"] += sum(pairs(n) for n in clusters.values())
            total["tp"] += tp
            total["true_pairs"] += sum(pairs(n) for n in hotels.values())
    for total in cases.values():
        total["fp"] = total["predicted_pairs"] - total["tp"]
        total["precision"] = round(total["tp"] / total["predicted_pairs"], 6) if total["predicted_pairs"] else None
        total["recall"] = round(total["tp"] / total["true_pairs"], 6) if total["true_pairs"] else None
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clusters")
    parser.add_argument("--truth", required=True)
    parser.add_argument("--hard-cases")
    args = parser.parse_args()
    predicted = read_labels(args.clusters, "cluster")
    truth = read_labels(args.truth, "hotel")
    result = quality(predicted, truth)
    if args.hard_cases:
        result["hard_cases"] = hard_case_quality(args.hard_cases, predicted, truth)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
