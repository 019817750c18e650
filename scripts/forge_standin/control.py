"""The tests' control interface under /_standin/: reset, recorded requests, objects, PR heads, faults, deliveries."""
import json
import urllib.parse

from . import delivery

FAULT_KINDS = ("secondary-rate-limit", "429", "502", "500", "401", "hang")
PULL_FIELDS = ("head_sha", "head_ref", "base_ref", "base_sha", "state", "head_repo", "title", "author", "merged")


class ControlError(Exception):
    pass


def handle(server, method, raw_path, raw_query, headers, body):
    """(status, JSON answer, headers) for one control request."""
    state = server.state
    path = raw_path[len("/_standin"):]
    query = urllib.parse.parse_qs(raw_query)
    if path.startswith("/sink/"):
        return receive(state, method, raw_path, headers, body)
    try:
        request = json.loads(body) if body else {}
        if not isinstance(request, dict):
            raise ControlError("the request body must be a JSON object")
        route = ROUTES.get((method, path))
        if route:
            return 200, route(server, state, request, query), {}
        if method == "POST" and path.startswith("/deliveries/") and path.endswith("/repeat"):
            return 200, repeat(server, state, path.split("/")[2], request), {}
        raise ControlError(f"no control operation {method} {raw_path}; see scripts/forge-standin --help")
    except (ControlError, delivery.DeliveryError, KeyError, ValueError, TypeError) as failure:
        return 400, {"error": f"{type(failure).__name__}: {failure}"}, {}


def health(server, state, request, query):
    return {"ok": True, "base_url": state.config["base_url"]}


def reset(server, state, request, query):
    state.reset()
    return {"ok": True}


def requests(server, state, request, query):
    with state.lock:
        found = list(state.requests)
    if "forge" in query:
        found = [r for r in found if r["forge"] == query["forge"][-1]]
    if query.get("invalid") == ["1"]:
        found = [r for r in found if not r["valid"]]
    return {"requests": found}


def objects(server, state, request, query):
    with state.lock:
        return json.loads(json.dumps(state.objects))


def set_pull(server, state, request, query):
    forge, repo, number = request["forge"], project_key(request), int(request["number"])
    if forge not in state.objects:
        raise ControlError(f"forge must be github, gitea or gitlab, not {forge!r}")
    with state.lock:
        pull = state.pull(forge, repo, number)
        if pull is None:
            if "head_sha" not in request:
                raise ControlError("a new pull request needs head_sha")
            pull = {"repo": repo, "number": number}
            state.objects[forge]["pulls"].append(pull)
        pull.update({k: request[k] for k in PULL_FIELDS if k in request})
        return dict(pull)


def add_comment(server, state, request, query):
    """A comment written by someone else (a forge user), to test that Pipe finds only its own."""
    from . import github, gitlab

    forge, repo, number, login = request["forge"], project_key(request), int(request["number"]), request["login"]
    with state.lock:
        if forge == "gitlab":
            note = {"id": state.new_id(), "body": request["body"], "author": gitlab.user({"login": login}),
                    "created_at": state.iso(), "updated_at": state.iso(), "system": False, "noteable_iid": number,
                    "noteable_type": "MergeRequest", "project_id": repo, "project": repo}
            state.objects["gitlab"]["comments"].append(note)
            return note
        author = {"login": login, "id": 7, "type": request.get("type", "User")}
        comment = github.new_comment(state, repo, number, request["body"], author)
        state.objects[forge]["comments"].append(comment)
        return comment


def project_key(request):
    """GitLab keeps a project by its number when it is one, as its API does."""
    repo = request["repo"]
    return int(repo) if request.get("forge") == "gitlab" and str(repo).isdigit() else repo


def add_fault(server, state, request, query):
    kind = str(request["kind"])
    if kind not in FAULT_KINDS:
        raise ControlError(f"kind must be one of {', '.join(FAULT_KINDS)}, not {kind!r}")
    fault = {"kind": kind, "remaining": int(request.get("count", 1))}
    for name in ("path", "method", "forge", "retry_after", "seconds"):
        if name in request:
            fault[name] = request[name]
    with state.lock:
        state.faults.append(fault)
    return fault


def faults(server, state, request, query):
    with state.lock:
        return {"faults": [f for f in state.faults if f["remaining"] > 0]}


def rate_limit(server, state, request, query):
    with state.lock:
        for name in ("limit", "used", "reset_in"):
            if name in request:
                state.rate[name] = int(request[name])
        if "remaining" in request:
            state.rate["used"] = state.rate["limit"] - int(request["remaining"])
        state.rate_window_start = state.now()
        return state.rate_headers()


def add_token(server, state, request, query):
    forge = request["forge"]
    with state.lock:
        state.config["tokens"].setdefault(forge, {})[request["token"]] = request["login"]
    return {"ok": True}


def advance_clock(server, state, request, query):
    with state.lock:
        state.clock_offset += int(request["seconds"])
    return {"now": state.now()}


def deliver(server, state, request, query):
    headers, body = delivery.build(request, server.pack)
    return send(state, request, headers, body)


def send(state, request, headers, body):
    url = request.get("url") or ""
    if not url.startswith(("http://", "https://")):
        raise ControlError(f"url must be an http(s) address to deliver to, not {url!r}")
    status, answer = delivery.send(url, headers, body, float(request.get("timeout", 30)))
    with state.lock:
        record = {"id": len(state.deliveries) + 1, "request": request, "url": url, "headers": headers,
                  "body": body.decode(errors="replace"), "status": status, "answer": answer}
        state.deliveries.append(record)
    return record


def repeat(server, state, delivery_id, request):
    """The same delivery again: the same id (a redelivery) or, with new_delivery_id, a fresh one (a replay)."""
    with state.lock:
        earlier = next((d for d in state.deliveries if str(d["id"]) == delivery_id), None)
    if earlier is None:
        raise ControlError(f"no delivery {delivery_id}")
    original = dict(earlier["request"], **{k: v for k, v in request.items() if k in ("url", "timeout")})
    if request.get("new_delivery_id"):
        original.pop("delivery_id", None)
    else:
        original["delivery_id"] = delivery_id_of(earlier["headers"])
    headers, body = delivery.build(original, server.pack)
    return send(state, original, headers, body)


def delivery_id_of(headers):
    for name in ("X-GitHub-Delivery", "X-Gitea-Delivery", "Idempotency-Key"):
        if name in headers:
            return headers[name]
    return None


def deliveries(server, state, request, query):
    with state.lock:
        return {"deliveries": list(state.deliveries)}


def receive(state, method, raw_path, headers, body):
    """A webhook receiver inside the stand-in, so tests can read exactly what a delivery carried."""
    with state.lock:
        state.sink.append({"method": method, "path": raw_path, "headers": [[k, v] for k, v in headers.items()],
                           "body": body.decode(errors="replace")})
        return state.sink_status, {"received": len(state.sink)}, {}


def received(server, state, request, query):
    with state.lock:
        return {"received": list(state.sink)}


def sink_status(server, state, request, query):
    with state.lock:
        state.sink_status = int(request["status"])
    return {"status": state.sink_status}


ROUTES = {
    ("GET", "/health"): health, ("POST", "/reset"): reset, ("GET", "/requests"): requests,
    ("GET", "/objects"): objects, ("POST", "/pulls"): set_pull, ("POST", "/comments"): add_comment,
    ("POST", "/faults"): add_fault, ("GET", "/faults"): faults, ("POST", "/rate-limit"): rate_limit,
    ("POST", "/tokens"): add_token, ("POST", "/clock"): advance_clock, ("POST", "/deliver"): deliver,
    ("GET", "/deliveries"): deliveries, ("GET", "/received"): received, ("POST", "/sink-status"): sink_status,
}
