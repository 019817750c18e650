"""Webhook deliveries with each forge's real headers (WEBHOOKS.md) and a correct, wrong, tampered or no signature."""
import base64
import hashlib
import hmac
import http.client
import json
import os
import time
import urllib.parse
import uuid

SIGNATURES = ("correct", "incorrect", "tampered", "none")
GITLAB_EVENTS = {"push": "Push Hook", "tag_push": "Tag Push Hook", "merge_request": "Merge Request Hook",
                 "note": "Note Hook", "pipeline": "Pipeline Hook", "build": "Job Hook", "issue": "Issue Hook"}


class DeliveryError(Exception):
    pass


def github_event(file_name):
    """`pull_request.opened.octokit.json` → `pull_request`."""
    return os.path.basename(file_name).split(".")[0]


def gitea_event(file_name):
    """(X-Gitea-Event, X-Gitea-Event-Type) from a file name such as `pull_request_synchronized.go-scm.json`."""
    stem = os.path.basename(file_name).split(".")[0]
    if stem.startswith("pull_request") or stem.startswith("pull-request"):
        return "pull_request", "pull_request_sync" if stem.endswith("synchronized") else "pull_request"
    if stem.startswith("push"):
        return "push", "push"
    if stem.startswith("branch_delete"):
        return "delete", "delete"
    if stem.startswith("tag_create"):
        return "create", "create"
    return stem, stem


def hex_hmac(secret, body, digest=hashlib.sha256):
    return hmac.new(secret.encode(), body, digest).hexdigest()


def tamper(body):
    """The same JSON with one byte more, so only the signature (not the parser) can tell."""
    index = body.index(b"{") + 1
    return body[:index] + b" " + body[index:]


def build(request, pack):
    """The headers and body of one delivery, from a control request."""
    forge = request.get("forge")
    if forge not in ("github", "gitea", "forgejo", "gitlab"):
        raise DeliveryError(f"forge must be github, gitea, forgejo or gitlab, not {forge!r}")
    signature = request.get("signature", "correct")
    if signature not in SIGNATURES:
        raise DeliveryError(f"signature must be one of {', '.join(SIGNATURES)}, not {signature!r}")
    folder = "gitea" if forge == "forgejo" else forge
    if "body" in request:
        body, file_name = request["body"].encode(), request.get("event", "custom")
    else:
        file_name = request.get("payload", "")
        path = os.path.normpath(os.path.join(pack, folder, "webhooks", file_name))
        if not path.startswith(os.path.join(pack, folder, "webhooks") + os.sep) or not os.path.isfile(path):
            raise DeliveryError(f"no payload {file_name!r} in {folder}/webhooks of the contract pack")
        body = open(path, "rb").read()
    secret = request.get("secret", "")
    delivery_id = request.get("delivery_id") or str(uuid.uuid4())
    signed_secret = secret + "-wrong" if signature == "incorrect" else secret
    sent = tamper(body) if signature == "tampered" else body
    headers = {"Content-Type": "application/json"}
    if forge == "github":
        event = request.get("event") or github_event(file_name)
        headers.update({"User-Agent": "GitHub-Hookshot/standin", "X-GitHub-Event": event,
                        "X-GitHub-Delivery": delivery_id, "X-GitHub-Hook-ID": str(request.get("hook_id", 1)),
                        "X-GitHub-Hook-Installation-Target-Type": "repository",
                        "X-GitHub-Hook-Installation-Target-ID": "1"})
        if signature != "none":
            headers["X-Hub-Signature-256"] = "sha256=" + hex_hmac(signed_secret, body)
            headers["X-Hub-Signature"] = "sha1=" + hex_hmac(signed_secret, body, hashlib.sha1)
    elif forge in ("gitea", "forgejo"):
        event, event_type = gitea_event(file_name)
        event = request.get("event") or event
        names = ["Gitea", "Gogs", "GitHub"] + (["Forgejo"] if forge == "forgejo" else [])
        # With no secret Gitea still sends the headers, with empty digests.
        digest = hex_hmac(signed_secret, body) if signature != "none" else ""
        digest1 = hex_hmac(signed_secret, body, hashlib.sha1) if signature != "none" else ""
        for name in names:
            headers[f"X-{name}-Delivery"] = delivery_id
            headers[f"X-{name}-Event"] = event
            headers[f"X-{name}-Event-Type"] = event_type
        for name in names:
            if name != "GitHub":
                headers[f"X-{name}-Signature"] = digest
        headers["X-Hub-Signature"] = "sha1=" + digest1
        headers["X-Hub-Signature-256"] = "sha256=" + digest
    else:
        kind = json.loads(body).get("object_kind", "")
        headers.update({"User-Agent": "GitLab/17.4.0", "X-Gitlab-Event": request.get("event") or GITLAB_EVENTS.get(kind, kind),
                        "X-Gitlab-Instance": "https://gitlab.example", "X-Gitlab-Webhook-UUID": str(uuid.uuid4()),
                        "X-Gitlab-Event-UUID": delivery_id, "Idempotency-Key": delivery_id})
        if signature != "none" and secret:
            headers["X-Gitlab-Token"] = signed_secret
        if request.get("signing_token"):
            timestamp = str(request.get("timestamp") or int(time.time()))
            headers["webhook-id"], headers["webhook-timestamp"] = delivery_id, timestamp
            if signature != "none":
                key = base64.b64decode(request["signing_token"][len("whsec_"):])
                if signature == "incorrect":
                    key = key[::-1]
                signed = delivery_id.encode() + b"." + timestamp.encode() + b"." + body
                headers["webhook-signature"] = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return headers, sent


def send(url, headers, body, timeout=30):
    """POST the delivery (header names as each forge spells them); the receiver's status and body, 0 if unreachable."""
    parts = urllib.parse.urlsplit(url)
    connection_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    try:
        connection = connection_type(parts.hostname, parts.port, timeout=timeout)
        connection.putrequest("POST", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        answer = response.read().decode(errors="replace")[:4096]
        connection.close()
        return response.status, answer
    except (OSError, http.client.HTTPException) as failure:
        return 0, f"could not reach {url}: {failure}"
