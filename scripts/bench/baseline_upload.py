#!/usr/bin/env python3
"""Baseline for `npm run bench`: a plain single-threaded script doing what `xctl audiences
upload --type email --dry-run --out F` does: trim + lowercase + check each email, SHA-256 it
(hashlib, lowercase hex), pack 2500 users per request body, write one JSON body per line."""
import hashlib
import json
import re
import sys

EMAIL = re.compile(r"^[^\s@]+@[^\s@]+$")


def main(src: str, dst: str, batch_size: int = 2500) -> None:
    read = valid = 0
    users = []
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        def flush() -> None:
            body = [{"operation_type": "Update", "params": {"users": users}}]
            out.write(json.dumps(body, separators=(",", ":")) + "\n")

        for line in f:
            v = line.strip().lower()
            if not v:
                continue
            read += 1
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
