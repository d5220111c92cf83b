#!/usr/bin/python3
"""test/e2e/schema_check.py -- shb's JSON reports against docs/report.schema.json.

    /usr/bin/python3 test/e2e/schema_check.py SCHEMA FILE...

Each FILE must hold exactly one JSON value that the schema (JSON Schema
draft 2020-12, Debian's python3-jsonschema) accepts, and its numbers must
be written as the report promises: no exponent, no -0, at most 9 decimals
(seconds to the nanosecond), and every rate (a ...PerSec key, and rate's
requested, achieved, from, to) at most 1. The schema itself must describe
every key it names. Prints one line per file that fails (FILE: where: why)
and a last line "N valid, M invalid"; exit status 1 if any failed.
"""
import json
import re
import sys

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match


class Literal(str):
    """A number as written in the file."""


RATE_KEYS = {"requested", "achieved", "from", "to"}
NUMBER = re.compile(r"^-?(0|[1-9][0-9]*)(\.([0-9]+))?$")


def number_problems(value, path, parent_key=None):
    """Where a number is written otherwise than the report promises."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from number_problems(v, path + [k], k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from number_problems(v, path + [i], parent_key)
    elif isinstance(value, Literal):
        m = NUMBER.match(value)
        where = "/".join(str(p) for p in path)
        places = len(m.group(3)) if m and m.group(3) else 0
        if not m:
            yield "%s: %s is not a plain decimal" % (where, value)
        elif value.startswith("-") and float(value) == 0:
            yield "%s: -0" % where
        elif places > 9:
            yield "%s: %s has more than 9 decimals" % (where, value)
        elif (str(parent_key).endswith("PerSec") or (len(path) >= 2 and path[-2] == "rate" and parent_key in RATE_KEYS)) and places > 1:
            yield "%s: %s is a rate with more than 1 decimal" % (where, value)


def undescribed(node, path="#"):
    """Schema properties (and definitions) that have no description."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if not (isinstance(sub, dict) and "description" in sub):
                yield "%s/properties/%s" % (path, name)
        for key, sub in node.items():
            if isinstance(sub, (dict, list)):
                yield from undescribed(sub, "%s/%s" % (path, key))
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from undescribed(sub, "%s/%d" % (path, i))


def check(validator, name):
    try:
        text = open(name, encoding="utf-8").read()
        doc = json.loads(text, parse_float=Literal, parse_int=Literal)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return ["not one JSON value: %s" % e]
    problems = list(number_problems(doc, []))
    plain = json.loads(text)
    err = best_match(validator.iter_errors(plain))
    if err is not None:
        where = "/".join(str(p) for p in err.absolute_path) or "(top)"
        problems.insert(0, "%s: %s" % (where, err.message[:300]))
    return problems


def main(argv):
    if len(argv) < 2:
        print("usage: schema_check.py SCHEMA FILE...", file=sys.stderr)
        return 2
    schema = json.load(open(argv[1], encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    missing = list(undescribed(schema))
    if missing:
        print("%s: keys without a description: %s" % (argv[1], ", ".join(missing[:10])))
        return 1
    validator = Draft202012Validator(schema)
    bad = 0
    for name in argv[2:]:
        problems = check(validator, name)
        if problems:
            bad += 1
            print("%s: %s" % (name, "; ".join(problems[:3])))
    print("%d valid, %d invalid" % (len(argv) - 2 - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
