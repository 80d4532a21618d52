#!/usr/bin/env python3
"""Tests of the matching benchmark's Python side (issue 47): the synthetic world
(match_world.py), the pairwise evaluator (pairwise_quality.py) on hand-made
cases, and splink_match.py end to end on 3 suppliers x 200 records.

usage: python3 -m pytest scripts/bench/test_match_peer.py   (or: python3 scripts/bench/test_match_peer.py)

The end-to-end test runs splink 5 from the venv that splink_match.ensure_venv
makes (bench-data/splink-venv, from PyPI), or from $SPLINK_PYTHON; it is
skipped when neither is there and SPLINK_INSTALL=1 is not set.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import match_world  # noqa: E402
import pairwise_quality  # noqa: E402
import splink_match  # noqa: E402  (imports no splink at module level)


def write_lines(path, rows):
    with open(path, "w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")


def evaluate(clusters, truth, hard=None):
    """Runs pairwise_quality.py as a program on rows; returns its JSON."""
    with tempfile.TemporaryDirectory() as folder:
        paths = {name: os.path.join(folder, name + ".jsonl") for name in ("clusters", "truth", "hard")}
        write_lines(paths["clusters"], clusters)
        write_lines(paths["truth"], truth)
        argv = [sys.executable, os.path.join(HERE, "pairwise_quality.py"), paths["clusters"], "--truth", paths["truth"]]
        if hard is not None:
            write_lines(paths["hard"], hard)
            argv += ["--hard-cases", paths["hard"]]
        out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
        return json.loads(out)


# Five records of three hotels: A (2 records from suppliers 1 and 2), B (2, both supplier 1:
# a within-supplier duplicate), C (1).
TRUTH = [{"supplier": 1, "code": "a1", "hotel": "A"}, {"supplier": 2, "code": "a2", "hotel": "A"},
         {"supplier": 1, "code": "b1", "hotel": "B"}, {"supplier": 1, "code": "b2", "hotel": "B"},
         {"supplier": 3, "code": "c1", "hotel": "C"}]


def clustering(labels):
    return [{"supplier": t["supplier"], "code": t["code"], "cluster": label} for t, label in zip(TRUTH, labels)]


class PairwiseQualityTests(unittest.TestCase):
    def test_perfect_clustering_scores_one(self):
        result = evaluate(clustering(["x", "x", 7, 7, "z"]), TRUTH)
        self.assertEqual((result["precision"], result["recall"], result["f1"]), (1.0, 1.0, 1.0))
        self.assertEqual((result["tp"], result["fp"], result["fn"]), (2, 0, 0))
        self.assertEqual(result["within_supplier_duplicate_pairs"], 1)
        self.assertEqual(result["within_supplier_recall"], 1.0)

    def test_one_merged_cluster_has_the_known_precision(self):
        # 10 predicted pairs, 2 of them true: precision 0.2, recall 1, F1 = 2*0.2/1.2.
        result = evaluate(clustering([1] * 5), TRUTH)
        self.assertEqual((result["predicted_pairs"], result["true_pairs"], result["tp"]), (10, 2, 2))
        self.assertAlmostEqual(result["precision"], 0.2)
        self.assertAlmostEqual(result["recall"], 1.0)
        self.assertAlmostEqual(result["f1"], round(0.4 / 1.2, 6))
        self.assertEqual(result["fp"], 8)

    def test_singletons_find_nothing(self):
        result = evaluate(clustering([1, 2, 3, 4, 5]), TRUTH)
        self.assertEqual((result["precision"], result["recall"], result["f1"]), (1.0, 0.0, 0.0))
        self.assertEqual((result["fn"], result["within_supplier_duplicates_found"]), (2, 0))

    def test_a_split_and_a_wrong_merge(self):
        # A split; B right; C merged into B: predicted pairs b1-b2, b1-c1, b2-c1.
        result = evaluate(clustering([1, 2, 3, 3, 3]), TRUTH)
        self.assertEqual((result["tp"], result["fp"], result["fn"]), (1, 2, 1))
        self.assertAlmostEqual(result["precision"], round(1 / 3, 6))
        self.assertAlmostEqual(result["recall"], 0.5)

    def test_suppliers_compare_as_text_and_missing_records_are_singletons(self):
        rows = clustering(["x", "x", 7, 7, "z"])
        rows[1]["supplier"] = "2"  # the same supplier as 2
        del rows[4]  # c1 not clustered: a singleton
        rows.append({"supplier": 9, "code": "extra", "cluster": "x"})  # not in the truth: merged with A wrongly
        result = evaluate(rows, TRUTH)
        self.assertEqual((result["only_in_clusters"], result["only_in_truth"]), (1, 1))
        self.assertEqual((result["tp"], result["fp"], result["fn"]), (2, 2, 0))

    def test_hard_cases_count_pairs_inside_each_group(self):
        hard = [{"case": "siblings", "records": [{"supplier": 1, "code": "a1"}, {"supplier": 2, "code": "a2"},
                                                 {"supplier": 1, "code": "b1"}]},
                {"case": "siblings", "records": [{"supplier": 1, "code": "b2"}, {"supplier": 3, "code": "c1"}]}]
        # a1, a2, b1 all in one cluster: 3 pairs inside the first group, 1 true; the second group apart.
        result = evaluate(clustering([1, 1, 1, 2, 3]), TRUTH, hard)
        case = result["hard_cases"]["siblings"]
        self.assertEqual((case["groups"], case["predicted_pairs"], case["tp"], case["fp"]), (2, 3, 1, 2))
        self.assertAlmostEqual(case["precision"], round(1 / 3, 6))

    def test_quality_counts_without_listing_pairs(self):
        # 1,000 records in 10 hotels of 100, predicted as 20 clusters of 50 (each half a hotel).
        truth = {f"1\t{i}": i // 100 for i in range(1000)}
        predicted = {f"1\t{i}": i // 50 for i in range(1000)}
        result = pairwise_quality.quality(predicted, truth)
        self.assertEqual(result["true_pairs"], 10 * 100 * 99 // 2)
        self.assertEqual(result["tp"], 20 * 50 * 49 // 2)
        self.assertEqual(result["fp"], 0)


class WorldTests(unittest.TestCase):
    def test_three_suppliers_of_200_with_truth_and_hard_cases(self):
        with tempfile.TemporaryDirectory() as folder:
            records, truth, hard = (os.path.join(folder, n) for n in ("r.jsonl", "t.jsonl", "h.jsonl"))
            count = match_world.write(records, truth, hard, suppliers=3, per_supplier=200)
            rows = [json.loads(line) for line in open(records)]
            truths = [json.loads(line) for line in open(truth)]
            cases = {json.loads(line)["case"] for line in open(hard)}
        self.assertEqual(len(rows), count)
        self.assertTrue(600 <= count <= 615, count)  # 200 a supplier plus ~1% duplicates
        self.assertEqual([(r["supplier"], r["code"]) for r in rows], [(t["supplier"], t["code"]) for t in truths])
        self.assertEqual(len({(r["supplier"], r["code"]) for r in rows}), count)
        self.assertEqual(cases, {"sibling-brands", "one-complex", "same-brand-nearby", "generic-names"})
        keys = {"supplier", "code", "name", "address", "latitude", "longitude", "phone", "postalCode", "city",
                "countryCode", "chainCode", "rating", "references"}
        self.assertTrue(all(set(r) == keys for r in rows))
        self.assertTrue(any(r["latitude"] == 0 and r["longitude"] == 0 for r in rows))
        self.assertTrue(any(r["latitude"] is None for r in rows))
        self.assertTrue(any(r["phone"] is None for r in rows) and any(r["address"] is None for r in rows))
        by_hotel = {}
        for t in truths:
            by_hotel.setdefault(t["hotel"], set()).add(t["supplier"])
        self.assertGreater(sum(1 for s in by_hotel.values() if len(s) >= 2), len(by_hotel) // 2)

    def test_deterministic_for_a_seed(self):
        first = list(match_world.generate(2, 50, seed=3))
        self.assertEqual(first, list(match_world.generate(2, 50, seed=3)))
        self.assertNotEqual(first, list(match_world.generate(2, 50, seed=4)))


def splink_python():
    if os.environ.get("SPLINK_PYTHON"):
        return os.environ["SPLINK_PYTHON"]
    if os.path.exists(os.path.join(splink_match.VENV, "bin", "python")) or os.environ.get("SPLINK_INSTALL") == "1":
        return splink_match.ensure_venv()
    return None


class SplinkEndToEndTests(unittest.TestCase):
    def test_splink_clusters_three_suppliers_and_the_evaluator_scores_them(self):
        python = splink_python()
        if not python:
            self.skipTest("no splink venv (run with SPLINK_INSTALL=1 to make bench-data/splink-venv)")
        with tempfile.TemporaryDirectory() as folder:
            records, truth, hard, clusters = (os.path.join(folder, n) for n in
                                              ("r.jsonl", "t.jsonl", "h.jsonl", "c.jsonl"))
            count = match_world.write(records, truth, hard, suppliers=3, per_supplier=200)
            run = subprocess.run([python, os.path.join(HERE, "splink_match.py"), records, "--out", clusters,
                                  "--quiet", "--threads", "2"], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr[-3000:])
            summary = json.loads(run.stdout)
            self.assertTrue(summary["version"].startswith("5."))
            self.assertEqual(summary["records"], count)
            self.assertGreater(summary["peak_rss_bytes"], 0)
            self.assertEqual(set(summary["seconds"]), {"load", "train", "predict", "cluster", "write"})
            rows = [json.loads(line) for line in open(clusters)]
            self.assertEqual(len(rows), count)
            self.assertTrue(all(isinstance(r["supplier"], int) for r in rows))  # the supplier as it was read
            quality = json.loads(subprocess.run(
                [sys.executable, os.path.join(HERE, "pairwise_quality.py"), clusters, "--truth", truth,
                 "--hard-cases", hard], check=True, capture_output=True, text=True).stdout)
        self.assertEqual((quality["only_in_clusters"], quality["only_in_truth"]), (0, 0))
        # A sanity floor, not a goal: a configured splink finds most pairs on this easy world.
        self.assertGreater(quality["f1"], 0.8, quality)

    def test_string_suppliers_and_nulls_everywhere(self):
        python = splink_python()
        if not python:
            self.skipTest("no splink venv")
        rows = []
        for s, endpoint in enumerate(["ota@http://a.example/soap", "gds@http://b.example/soap"]):
            for i in range(60):
                rows.append({"supplier": endpoint, "code": f"{i}", "name": f"Hôtel Number {i} & Spa" if i % 7 else None,
                             "address": f"{i} Rue de la Paix" if i % 5 else None,
                             "latitude": 0.0 if i % 11 == 0 else 48.8 + i * 0.01, "longitude": 0.0 if i % 11 == 0 else 2.3,
                             "phone": f"+33 1 40 00 00 {i:02d}" if i % 3 else None, "postalCode": None, "city": "Paris",
                             "countryCode": "FR", "chainCode": None, "rating": None,
                             "references": {"giata": str(1000 + i)} if s == 0 and i % 2 else None})
        rows.append({"supplier": "x@y", "code": "only-code"})  # every other key absent
        with tempfile.TemporaryDirectory() as folder:
            records, clusters = os.path.join(folder, "r.jsonl"), os.path.join(folder, "c.jsonl")
            write_lines(records, rows)
            run = subprocess.run([python, os.path.join(HERE, "splink_match.py"), records, "--out", clusters, "--quiet"],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr[-3000:])
            out = [json.loads(line) for line in open(clusters)]
        self.assertEqual(sorted((r["supplier"], r["code"]) for r in out), sorted((r["supplier"], r["code"]) for r in rows))


if __name__ == "__main__":
    unittest.main()
