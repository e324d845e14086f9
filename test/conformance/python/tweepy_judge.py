"""tweepy (Debian's python3-tweepy) against a running `xctl sandbox`, driven as its docs use it.

The one redirection is a requests transport adapter mounted on tweepy's own session, the
documented way to route a requests session: every https://api.twitter.com/... and
https://upload.twitter.com/... request goes to the sandbox's base URL, with its Host header
kept, so the OAuth 1.0a signature over the https URL still verifies. Prints one JSON object of
what each check saw; test/conformance/tweepy.test.ts asserts on it. Written for this project.
"""
import json
import os
import sys
import tempfile
from urllib.parse import urlsplit

import requests
import tweepy

BASE = os.environ["SANDBOX_BASE_URL"]
KEYS = dict(
    consumer_key=os.environ["SANDBOX_API_KEY"],
    consumer_secret=os.environ["SANDBOX_API_SECRET"],
    access_token=os.environ["SANDBOX_ACCESS_TOKEN"],
    access_token_secret=os.environ["SANDBOX_ACCESS_TOKEN_SECRET"],
)


class SandboxAdapter(requests.adapters.HTTPAdapter):
    """Sends an https request for a platform host to the sandbox, over plain HTTP on loopback."""

    def send(self, request, **kwargs):
        url = urlsplit(request.url)
        request.headers["Host"] = url.netloc
        request.url = BASE + url.path + ("?" + url.query if url.query else "")
        return super().send(request, **kwargs)


def to_sandbox(session):
    session.mount("https://", SandboxAdapter())


def png(width, height, size):
    import struct
    import zlib

    head = b"\x89PNG\r\n\x1a\n"
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    body = head + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
    return body + b"\0" * max(0, size - len(body))


def main():
    out = {}
    auth = tweepy.OAuth1UserHandler(**KEYS)
    api = tweepy.API(auth)
    to_sandbox(api.session)

    me = api.verify_credentials()
    out["verify_credentials"] = {k: getattr(me, k, None) for k in ("id_str", "screen_name", "followers_count", "verified", "protected")}
    out["verify_credentials"]["created_at"] = me.created_at.isoformat() if getattr(me, "created_at", None) else None

    limits = api.rate_limit_status(resources="account,media")
    out["rate_limit_status"] = limits["resources"]

    tmp = tempfile.mkdtemp()
    image = os.path.join(tmp, "banner.png")
    with open(image, "wb") as f:
        f.write(png(800, 418, 3000))
    simple = api.media_upload(image)
    out["simple_upload"] = {"media_id_string": simple.media_id_string, "size": getattr(simple, "size", None), "image": getattr(simple, "image", None)}
    chunked = api.media_upload(image, chunked=True, media_category="tweet_image")
    out["chunked_image"] = {"media_id_string": chunked.media_id_string, "media_key": getattr(chunked, "media_key", None)}
    video = os.path.join(tmp, "clip.mp4")
    with open(video, "wb") as f:
        f.write(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 6000)
    clip = api.media_upload(video, media_category="amplify_video")
    out["chunked_video"] = {"media_id_string": clip.media_id_string, "state": clip.processing_info["state"] if hasattr(clip, "processing_info") else None}

    client = tweepy.Client(**KEYS)
    to_sandbox(client.session)
    user = client.get_me(user_fields=["created_at", "description", "public_metrics", "verified", "profile_image_url"]).data
    out["get_me"] = {"id": user.id, "username": user.username, "created_at": user.created_at.isoformat() if user.created_at else None, "public_metrics": user.public_metrics, "verified": user.verified}

    stranger = tweepy.Client(bearer_token="AAAAnosuchbearer")
    to_sandbox(stranger.session)
    try:
        stranger.request("GET", "/2/webhooks")
        out["unknown_bearer"] = "accepted"
    except tweepy.Unauthorized as e:
        out["unknown_bearer"] = {"status": e.response.status_code, "content_type": e.response.headers.get("content-type"), "body": e.response.json()}

    print(json.dumps(out, default=str))


if __name__ == "__main__":
    sys.exit(main())
