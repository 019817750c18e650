"""The HTTP server: each forge's API under its prefix, and the tests' control interface under /_standin/."""
import json
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from . import contract, control, github, gitea, gitlab
from . import schema as jsonschema
from .store import ApiError

FORGES = {"github": github, "gitea": gitea, "gitlab": gitlab}
MAX_BODY = 32 * 1024 * 1024


class StandIn(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, state, operations, pack, verbose=False):
        super().__init__(address, Handler)
        self.state, self.operations, self.pack, self.verbose = state, operations, pack, verbose


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "forge-standin"

    def log_message(self, format, *args):
        if self.server.verbose:
            super().log_message(format, *args)

    def do_GET(self):
        self.dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self.read_chunked()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ApiError(413, {"message": "request body too large"}, None, ["body larger than 32 MiB"])
        return self.rfile.read(length) if length else b""

    def read_chunked(self):
        """A body sent with `Transfer-Encoding: chunked`, as libcurl streams one whose size it does not know."""
        body = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return body
            body += self.rfile.read(size)
            self.rfile.readline()
            if len(body) > MAX_BODY:
                raise ApiError(413, {"message": "request body too large"}, None, ["body larger than 32 MiB"])

    def answer(self, status, body, headers=None, content_type="application/json; charset=utf-8"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def dispatch(self):
        raw_path, _, raw_query = self.path.partition("?")
        try:
            body = self.read_body()
        except ApiError as refusal:
            self.close_connection = True
            return self.answer(refusal.status, refusal.body)
        if raw_path.startswith("/_standin/"):
            status, answer, headers = control.handle(self.server, self.command, raw_path, raw_query, self.headers, body)
            return self.answer(status, answer, headers)
        forge, rest = forge_of(raw_path)
        self.forge_request(forge, rest, raw_path, raw_query, body)

    def forge_request(self, forge, rest, raw_path, raw_query, body):
        state = self.server.state
        module = FORGES[forge]
        query = urllib.parse.parse_qs(raw_query, keep_blank_values=True)
        record = {"forge": forge, "method": self.command, "path": raw_path, "query": raw_query,
                  "headers": recorded_headers(self.headers), "body": body.decode(errors="replace"),
                  "operation": None, "valid": True, "problems": [], "fault": None, "at": state.now()}
        refused = None
        try:
            op, values, parsed, identity = self.validate(module, forge, rest, query, body, record)
        except ApiError as refusal:
            record.update(valid=False, problems=refusal.problems)
            refused = refusal
        with state.lock:
            record["seq"] = len(state.requests) + 1
            state.requests.append(record)
        fault = state.take_fault(forge, self.command, raw_path)
        if fault:
            record["fault"] = fault["kind"]
            return self.fault(forge, fault, record)
        if refused:
            record["status"] = refused.status
            return self.answer(refused.status, refused.body, refused.headers)
        try:
            if forge == "github":
                github.spend_rate(state)
            status, answer, headers = module.handle(state, op, values, query, parsed, identity)
        except ApiError as refusal:
            status, answer, headers = refusal.status, refusal.body, refusal.headers
            record.update(valid=False, problems=refusal.problems)
        except Exception as failure:  # a fault of the stand-in itself: answered, recorded and logged, never hidden
            traceback.print_exc()
            status, answer, headers = 500, {"message": f"forge stand-in error: {failure!r}"}, {}
            record.update(valid=False, problems=[f"the stand-in failed on this request: {failure!r}"])
        record["status"] = status
        if forge == "github":
            headers = dict(state.rate_headers(), **headers)
        self.answer(status, answer, headers)

    def validate(self, module, forge, rest, query, body, record):
        op, values = contract.route(self.server.operations, forge, self.command, rest)
        if op is None:
            if values:
                raise module.wrong_method(values)
            raise module.not_found()
        record["operation"] = op.operation_id
        identity = module.authenticate(self.server.state, op, self.headers, query)
        record["identity"] = identity["login"]
        found = contract.parameter_problems(op, values, query)
        path_problems = [p for p in found if op.parameters.get(p[0], {}).get("in") == "path"]
        if found:
            raise module.parameter_error(path_problems or found, bool(path_problems))
        parsed = self.parse_body(forge, op, query, body)
        if op.body_schema is not None and self.command != "GET":
            if parsed is None and op.body_required:
                raise module.schema_error([("", "nil is not an object")])
            found = jsonschema.problems(parsed if parsed is not None else {}, op.body_schema)
            if found:
                raise module.schema_error(found)
        limits = module.limit_problems(op, parsed or {})
        if limits:
            raise github.limit_error(limits) if forge == "github" else module.schema_error(limits)
        return op, values, parsed or {}, identity

    def parse_body(self, forge, op, query, body):
        content_type = self.headers.get("Content-Type", "")
        if forge == "gitlab":
            fields = {k: v[-1] for k, v in query.items() if k in op.body_schema.get("properties", {})}
            if body and "json" in content_type:
                fields.update(load_json(body, lambda: gitlab.error(400, {"error": "body is invalid JSON"},
                                                                   ["body is not JSON"])))
            elif body:
                fields.update({k: v[-1] for k, v in urllib.parse.parse_qs(body.decode(errors="replace")).items()})
            return gitlab.coerce_fields(op, fields)
        if not body:
            return None
        return load_json(body, lambda: ApiError(400, {"message": "Problems parsing JSON", "documentation_url": github.DOCS},
                                                None, ["body is not JSON"]))

    def fault(self, forge, fault, record):
        kind = fault["kind"]
        retry_after = str(fault.get("retry_after", 60))
        record["status"] = FAULT_STATUS.get(kind, 0)
        if kind == "hang":
            time.sleep(float(fault.get("seconds", 30)))
            self.close_connection = True
            return
        if kind == "502":
            return self.answer(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>\n", {}, "text/html")
        module = FORGES[forge]
        if kind == "secondary-rate-limit":
            message = ("You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
                       "If you reach out to GitHub Support for help, please include the request ID.")
            return self.answer(403, {"message": message, "documentation_url": github.DOCS + "#secondary-rate-limits"},
                               {"Retry-After": retry_after})
        if kind == "429":
            if forge == "gitlab":
                return self.answer(429, b"Retry later\n", {"Retry-After": retry_after, "RateLimit-Limit": "600",
                                                           "RateLimit-Remaining": "0",
                                                           "RateLimit-Reset": str(self.server.state.now() + int(retry_after))},
                                   "text/plain")
            return self.answer(429, {"message": "Too Many Requests"}, {"Retry-After": retry_after})
        if kind == "500":
            return self.answer(500, {"github": {"message": "Server Error"}, "gitea": {"message": "Internal Server Error"},
                                     "gitlab": {"message": "500 Internal Server Error"}}[forge])
        refusal = {"github": github.error(401, "Bad credentials"), "gitea": gitea.error(401, "token is required"),
                   "gitlab": gitlab.error(401, {"message": "401 Unauthorized"}, [])}[forge]
        return self.answer(401, refusal.body)


FAULT_STATUS = {"secondary-rate-limit": 403, "429": 429, "502": 502, "500": 500, "401": 401, "hang": 0}


def unanswered(operations):
    """Operations of the pack that no forge module answers (one added by extract.py needs a handler too)."""
    return [f"{op.forge} {op.operation_id}" for op in operations if op.operation_id not in FORGES[op.forge].ANSWERED]


def load_json(body, refusal):
    try:
        return json.loads(body)
    except ValueError:
        raise refusal()


def forge_of(raw_path):
    for forge, prefix in contract.PREFIXES.items():
        if raw_path == prefix or raw_path.startswith(prefix + "/"):
            return forge, raw_path[len(prefix):]
    return "github", raw_path


def recorded_headers(headers):
    """The request's headers, credentials cut to their scheme so the log holds no secret."""
    kept = {}
    for name, value in headers.items():
        if name.lower() == "authorization":
            value = value.split(" ", 1)[0] + " …"
        elif name.lower() == "private-token":
            value = "…"
        kept[name] = value
    return kept
