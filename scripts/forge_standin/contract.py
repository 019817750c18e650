"""Each forge's operations, read from the contract pack: method, path template, parameters and body schema."""
import json
import urllib.parse
from dataclasses import dataclass, field

from . import schema as jsonschema

# Where each forge's API lives on the stand-in, as a forge's base URL would put it.
PREFIXES = {"github": "/api/v3", "gitea": "/api/v1", "gitlab": "/api/v4"}
HTTP_METHODS = ("get", "post", "put", "patch", "delete")


@dataclass
class Operation:
    forge: str
    operation_id: str
    method: str
    template: list
    parameters: dict = field(default_factory=dict)  # name -> {"in": path|query|body, "schema": {...}, "required": bool}
    body_schema: dict = None
    body_required: bool = False
    source: str = ""

    @property
    def path(self):
        return "/" + "/".join(self.template)

    def match(self, segments):
        if len(segments) != len(self.template):
            return None
        values = {}
        for part, raw in zip(self.template, segments):
            if part.startswith("{"):
                if raw == "":
                    return None
                values[part[1:-1]] = urllib.parse.unquote(raw)
            elif part != raw:
                return None
        return values

    @property
    def literal_count(self):
        return sum(1 for part in self.template if not part.startswith("{"))


def described_operations(spec):
    """(path, method, operation) for every operation of an OpenAPI or Swagger description."""
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in HTTP_METHODS:
                yield path, method, op


def github_operations(pack):
    spec = json.load(open(f"{pack}/github/openapi-subset.json"))
    operations = []
    for path, method, op in described_operations(spec):
        params = {p["name"]: {"in": p["in"], "schema": p.get("schema", {}), "required": p.get("required", False)}
                  for p in op.get("parameters", [])}
        body = op.get("requestBody")
        body_schema = body["content"]["application/json"]["schema"] if body else None
        operations.append(Operation("github", op["operationId"], method.upper(), path.strip("/").split("/"),
                                    params, body_schema, bool(body and body.get("required")),
                                    "github/openapi-subset.json"))
    # Outside the pack: who a token is (GitHub's users API), which Pipe asks to find its own comments.
    operations.append(Operation("github", "users/get-authenticated", "GET", ["user"], {}, None, False,
                                "outside the pack: GitHub users API (GET /user)"))
    return operations


def gitea_operations(pack, flavour="gitea"):
    name = "openapi-subset.json" if flavour == "gitea" else "openapi-subset.forgejo.json"
    spec = json.load(open(f"{pack}/gitea/{name}"))
    operations = []
    for path, method, op in described_operations(spec):
        params, body_schema = {}, None
        for p in op.get("parameters", []):
            if p["in"] == "body":
                body_schema = dict(p["schema"])
                continue
            sub = {k: v for k, v in p.items() if k in ("type", "format", "enum")}
            params[p["name"]] = {"in": p["in"], "schema": sub, "required": p.get("required", False)}
        if op["operationId"] == "repoCreateStatus":
            body_schema = gitea_status_body(body_schema)
        operations.append(Operation("gitea", op["operationId"], method.upper(), path.strip("/").split("/"),
                                    params, body_schema, body_schema is not None, f"gitea/{name}"))
    # Outside the pack: who a token is (Gitea's `GET /user`, userGetCurrent), which Pipe asks to find its comments.
    operations.append(Operation("gitea", "userGetCurrent", "GET", ["user"], {}, None, False,
                                "outside the pack: Gitea users API (GET /user)"))
    return operations


def gitea_status_body(body_schema):
    """The swagger gives `state` no enum; Gitea's Go type (API-NOTES.md) knows these five and no others."""
    body_schema = json.loads(json.dumps(body_schema))
    body_schema["properties"]["state"]["enum"] = ["pending", "success", "error", "failure", "warning"]
    body_schema["required"] = ["state"]
    return body_schema


def gitlab_operations(pack):
    spec = json.load(open(f"{pack}/gitlab/api-contract.json"))
    operations = []
    for op in spec["operations"]:
        template = op["path"].strip("/").split("/")
        path_names = {part[1:-1] for part in template if part.startswith("{")}
        params, body = {}, {"type": "object", "properties": {}, "required": []}
        for pname, p in op["params"].items():
            sub = {k: v for k, v in p.items() if k in ("type", "enum", "maxLength", "format")}
            if sub.get("type") == "integer|string":
                sub.pop("type")
            if pname in path_names or op["method"] == "GET":
                where = "path" if pname in path_names else "query"
                params[pname] = {"in": where, "schema": sub, "required": where == "path"}
                continue
            body["properties"][pname] = sub
            if p.get("alias"):
                body["properties"][p["alias"]] = sub
            if p.get("required"):
                body["required"].append(pname)
        for pname in path_names - set(params):
            params[pname] = {"in": "path", "schema": {"type": "integer"} if pname.endswith("_id") or pname.endswith("iid") else {}, "required": True}
        operations.append(Operation("gitlab", op["id"], op["method"], template, params, body, False,
                                    "gitlab/api-contract.json"))
    # Outside api-contract.json, from API.md ("Get one") and GitLab's merge request API: Pipe reads an MR's head.
    operations.append(Operation("gitlab", "get_mr_note", "GET",
                                "projects/{id}/merge_requests/{merge_request_iid}/notes/{note_id}".split("/"),
                                {"id": {"in": "path", "schema": {}, "required": True},
                                 "merge_request_iid": {"in": "path", "schema": {"type": "integer"}, "required": True},
                                 "note_id": {"in": "path", "schema": {"type": "integer"}, "required": True}},
                                {"type": "object"}, False, "gitlab/API.md"))
    operations.append(Operation("gitlab", "get_merge_request", "GET",
                                "projects/{id}/merge_requests/{merge_request_iid}".split("/"),
                                {"id": {"in": "path", "schema": {}, "required": True},
                                 "merge_request_iid": {"in": "path", "schema": {"type": "integer"}, "required": True}},
                                {"type": "object"}, False, "outside the pack: GitLab merge requests API"))
    # Outside the pack: who a token is (GitLab's users API), which Pipe asks to find its own notes.
    operations.append(Operation("gitlab", "get_current_user", "GET", ["user"], {}, {"type": "object"}, False,
                                "outside the pack: GitLab users API (GET /user)"))
    return operations


def load(pack, gitea_flavour="gitea"):
    operations = github_operations(pack) + gitea_operations(pack, gitea_flavour) + gitlab_operations(pack)
    operations.sort(key=lambda op: -op.literal_count)
    return operations


def route(operations, forge, method, raw_path):
    """(operation, path values) for a request, or (None, allowed methods) when no operation has that method."""
    segments = raw_path.strip("/").split("/")
    allowed = []
    for op in operations:
        if op.forge != forge:
            continue
        values = op.match(segments)
        if values is None:
            continue
        if op.method == method:
            return op, values
        allowed.append(op.method)
    return None, allowed


def coerce(text, wanted):
    """A query or form value read as the type the contract names; ValueError when it is not one."""
    if wanted == "integer":
        if not text.lstrip("-").isdigit():
            raise ValueError(f"{text!r} is not an integer")
        return int(text)
    if wanted == "number":
        return float(text)
    if wanted == "boolean":
        if text not in ("true", "false", "1", "0"):
            raise ValueError(f"{text!r} is not a boolean")
        return text in ("true", "1")
    return text


def parameter_problems(op, path_values, query):
    """What is wrong with the path and query parameters: (name, message) pairs, path ones first."""
    found = []
    for name, p in op.parameters.items():
        if p["in"] == "path":
            wanted = p["schema"].get("type")
            try:
                coerce(path_values.get(name, ""), wanted)
            except ValueError as error:
                found.append((name, f"path parameter {name}: {error}"))
    for name, values in query.items():
        p = op.parameters.get(name)
        if not p or p["in"] != "query":
            continue
        try:
            value = coerce(values[-1], p["schema"].get("type"))
        except ValueError as error:
            found.append((name, f"query parameter {name}: {error}"))
            continue
        for _, message in jsonschema.problems(value, p["schema"]):
            found.append((name, f"query parameter {name}: {message}"))
    return found
