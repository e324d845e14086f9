#!/usr/bin/env python3
"""Baseline for `npm run bench`: what `xctl audiences upload --column email=Email --dry-run --out F`
does to a CRM export, written the way a user would in Python: csv.DictReader, then trim +
lowercase + check each email (xctl's pattern), SHA-256 it (hashlib, lowercase hex), pack 2500
users per request body, write one JSON body per line."""
import csv
import hashlib
import json
import re
import sys

EMAIL = re.compile(r"^[^\s@]+@[^\s@]+$")


def main(src: str, dst: str, column: str = "Email", batch_size: int = 2500) -> None:
    read = valid = 0
    users = []
    with open(src, encoding="utf-8-sig", newline="") as f, open(dst, "w", encoding="utf-8") as out:
        def flush() -> None:
            body = [{"operation_type": "Update", "params": {"users": users}}]
            out.write(json.dumps(body, separators=(",", ":")) + "\n")

        for row in csv.DictReader(f):
            read += 1
            v = (row.get(column) or "").strip().lower()
            if not EMAIL.match(v):
                continue
            valid += 1
            users.append({"email": [hashlib.sha256(v.encode("utf-8")).hexdigest()]})
            if len(users) == batch_size:
                flush()
                users = []
        if users:
            flush()
    print(json.dumps({"read": read, "valid": valid}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
