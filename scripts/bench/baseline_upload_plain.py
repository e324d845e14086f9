#!/usr/bin/env python3
"""Second baseline for `npm run bench`: the simplest script a user would write for the same job
as `xctl audiences upload --type email --dry-run --out F`: strip and lowercase each line, keep it
if it has an '@', SHA-256 it with hashlib, json.dumps 2500 users per request body, one body per
line. No regular expression (baseline_upload.py has the one xctl applies)."""
import hashlib
import json
import sys


def main(src: str, dst: str, batch_size: int = 2500) -> None:
    users = []
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            v = line.strip().lower()
            if "@" not in v:
                continue
            users.append({"email": [hashlib.sha256(v.encode("utf-8")).hexdigest()]})
            if len(users) == batch_size:
                out.write(json.dumps([{"operation_type": "Update", "params": {"users": users}}]) + "\n")
                users = []
        if users:
            out.write(json.dumps([{"operation_type": "Update", "params": {"users": users}}]) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
