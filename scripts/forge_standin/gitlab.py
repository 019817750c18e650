"""GitLab's API as the stand-in answers it (API.md, api-contract.json): Grape's 400s, `status`, notes by iid."""
import zlib

from . import github
from .store import ApiError

NOTES_PER_PAGE = 20
ANSWERED = {"set_commit_status", "list_commit_statuses", "list_mr_notes", "create_mr_note", "update_mr_note",
            "get_mr_note", "get_merge_request", "get_current_user"}


def error(status, body, problems):
    return ApiError(status, body, None, problems)


def not_found(what="404 Not Found"):
    return error(404, {"message": what}, [what])


def wrong_method(allowed):
    return error(405, {"message": "405 Method Not Allowed"}, ["405 Method Not Allowed"])


def schema_error(problems):
    """Grape's wording: `state is missing`, `state does not have a valid value`, `pipeline_id is invalid`."""
    messages, too_long = [], {}
    for where, message in problems:
        name = where.strip("/").split("/")[0]
        if "wasn't supplied" in message:
            messages.append(f"{name} is missing")
        elif "is not a member" in message:
            messages.append(f"{name} does not have a valid value")
        elif "is too long" in message:
            limit = message.rsplit("maximum is ", 1)[1].split(")")[0]
            too_long.setdefault("note" if name == "body" else name, []).append(
                f"is too long (maximum is {limit} characters)")
        else:
            messages.append(f"{name} is invalid")
    if messages:
        return error(400, {"error": ", ".join(messages)}, messages)
    return error(400, {"message": too_long}, [f"{k} {v[0]}" for k, v in too_long.items()])


def parameter_error(problems, in_path):
    if in_path:
        return not_found()
    return error(400, {"error": ", ".join(f"{n} is invalid" for n, _ in problems)}, [m for _, m in problems])


def authenticate(state, op, headers, query):
    token = headers.get("PRIVATE-TOKEN") or github.auth.bearer(headers, "bearer")
    login = state.config["tokens"].get("gitlab", {}).get(token or "")
    if login is None:
        raise error(401, {"message": "401 Unauthorized"}, ["no PRIVATE-TOKEN or Bearer token the forge knows"])
    return {"login": login}


def coerce_fields(op, body):
    """Form and query values arrive as text; Grape reads them as the declared type."""
    out = {}
    for name, value in body.items():
        wanted = op.body_schema.get("properties", {}).get(name, {}).get("type")
        if isinstance(value, str) and wanted in ("integer", "number", "boolean"):
            try:
                from .contract import coerce

                value = coerce(value, wanted)
            except ValueError:
                pass
        out[name] = value
    return out


def limit_problems(op, body):
    return []


def user(identity):
    login = identity["login"]
    return {"id": zlib.crc32(login.encode()) % 100000, "username": login, "name": login, "state": "active",
            "web_url": f"https://gitlab.example/{login}"}


def handle(state, op, values, query, body, identity):
    if op.operation_id == "get_current_user":
        return 200, user(identity), {}
    kept = state.objects["gitlab"]
    project = int(values["id"]) if values["id"].isdigit() else values["id"]
    with state.lock:
        if op.operation_id == "set_commit_status":
            return set_status(state, kept, project, values, body, identity)
        if op.operation_id == "list_commit_statuses":
            statuses = [s for s in kept["statuses"] if s["project"] == project and s["sha"] == values["sha"]]
            for name in ("ref", "name", "pipeline_id"):
                if name in query:
                    statuses = [s for s in statuses if str(s.get(name)) == query[name][-1]]
            if query.get("sort", ["asc"])[-1] == "desc":
                statuses.reverse()
            return 200, [public(s) for s in statuses], {}
        mr = int(values["merge_request_iid"])
        if op.operation_id == "get_merge_request":
            return get_merge_request(state, project, mr)
        if op.operation_id == "create_mr_note":
            note_id = state.new_id()
            note = {"id": note_id, "body": body["body"], "attachment": None, "author": user(identity),
                    "created_at": state.iso(), "updated_at": state.iso(), "system": False, "noteable_id": mr + 500,
                    "noteable_type": "MergeRequest", "noteable_iid": mr, "resolvable": False, "confidential": False,
                    "internal": bool(body.get("internal", False)), "project_id": project, "project": project}
            kept["comments"].append(note)
            return 201, public(note), {}
        notes = [n for n in kept["comments"] if n["project"] == project and n["noteable_iid"] == mr]
        if op.operation_id == "list_mr_notes":
            key = query.get("order_by", ["created_at"])[-1]
            notes.sort(key=lambda n: (n[key], n["id"]), reverse=query.get("sort", ["desc"])[-1] == "desc")
            size, page = github.page_of(query, "per_page", NOTES_PER_PAGE)
            last = max((len(notes) + size - 1) // size, 1)
            headers = {"X-Total": str(len(notes)), "X-Page": str(page), "X-Per-Page": str(size),
                       "X-Total-Pages": str(last), "X-Next-Page": str(page + 1) if page < last else ""}
            return 200, [public(n) for n in notes[(page - 1) * size: page * size]], headers
        for note in notes:
            if str(note["id"]) == values["note_id"]:
                if op.operation_id == "update_mr_note":
                    if note["author"]["username"] != identity["login"]:
                        raise error(403, {"message": "403 Forbidden"}, ["only the note's author may edit it"])
                    note["body"], note["updated_at"] = body["body"], state.iso()
                return 200, public(note), {}
        raise not_found("404 Note Not Found")


def set_status(state, kept, project, values, body, identity):
    name = body.get("name") or body.get("context") or "default"
    ref = body.get("ref")
    for status in kept["statuses"]:
        if (status["project"], status["sha"], status["name"], status["ref"]) == (project, values["sha"], name, ref):
            break
    else:
        status = {"id": state.new_id(), "project": project, "sha": values["sha"], "name": name, "ref": ref,
                  "created_at": state.iso(), "started_at": None, "finished_at": None, "allow_failure": False,
                  "author": user(identity)}
        kept["statuses"].append(status)
    status.update(status=body["state"], description=body.get("description"), target_url=body.get("target_url"),
                  coverage=body.get("coverage"), pipeline_id=body.get("pipeline_id"))
    if body["state"] == "running" and not status["started_at"]:
        status["started_at"] = state.iso()
    if body["state"] in ("success", "failed", "canceled", "skipped"):
        status["finished_at"] = state.iso()
    return 201, public(status), {}


def get_merge_request(state, project, iid):
    pull = state.pull("gitlab", project, iid)
    if not pull:
        raise not_found()
    return 200, {"id": iid + 500, "iid": iid, "project_id": project, "state": pull.get("state", "opened"),
                 "title": pull.get("title", f"Merge request !{iid}"), "sha": pull["head_sha"],
                 "source_branch": pull.get("head_ref", "feature"), "target_branch": pull.get("base_ref", "main"),
                 "source_project_id": pull.get("head_repo") or project, "target_project_id": project,
                 "diff_refs": {"head_sha": pull["head_sha"], "base_sha": pull.get("base_sha", "0" * 40),
                               "start_sha": pull.get("base_sha", "0" * 40)},
                 "author": {"username": pull.get("author", "gitlab-user"), "id": 1}}, {}


def public(record):
    return {k: v for k, v in record.items() if k not in ("project", "pipeline_id")}


