"""GitHub's REST API as the stand-in answers it: auth, the limits LIMITS.md lists, and the objects it keeps."""
import zlib

from . import auth
from .store import ApiError

DOCS = "https://docs.github.com/rest"
STATUS_DESCRIPTION_LIMIT = 140
COMMENT_BODY_LIMIT = 65536
STATUSES_PER_CONTEXT = 1000
ANNOTATION_TEXT_LIMIT = 64 * 1024
ANNOTATION_TITLE_LIMIT = 255
JWT_OPERATIONS = {"apps/create-installation-access-token", "apps/get-authenticated", "apps/get-repo-installation"}
APP_ONLY_OPERATIONS = {"checks/create", "checks/update"}


def error(status, message, errors=None, headers=None, problems=None):
    body = {"message": message, "documentation_url": DOCS}
    if errors:
        body["errors"] = errors
    return ApiError(status, body, headers, problems or [message])


def not_found():
    return error(404, "Not Found")


def wrong_method(allowed):
    return not_found()


def schema_error(problems):
    lines = "\n".join(f"For 'properties{where}', {message}." if where else f"{message}." for where, message in problems)
    return error(422, "Invalid request.\n\n" + lines, problems=[f"{w or '/'}: {m}" for w, m in problems])


def parameter_error(problems, in_path):
    if in_path:
        return error(404, "Not Found", problems=[m for _, m in problems])
    return error(422, "Validation Failed", [{"code": "invalid", "field": n, "message": m} for n, m in problems],
                 problems=[m for _, m in problems])


def authenticate(state, op, headers, query):
    """Who is calling: a personal token, an installation token, or the app itself (JWT)."""
    if not headers.get("User-Agent"):
        raise error(403, "Request forbidden by administrative rules. Please make sure your request has a User-Agent "
                         "header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required).")
    config = state.config
    if op.operation_id in JWT_OPERATIONS:
        token = auth.bearer(headers, "bearer")
        if not token:
            raise error(401, "A JSON web token could not be decoded" if headers.get("Authorization")
                        else "Requires authentication")
        try:
            auth.verify_app_jwt(token, config.get("github_app_public_key"), [config.get("github_app_id")], state.now())
        except auth.JWTError as failure:
            raise error(401, str(failure))
        return {"kind": "app", "login": config["github_app_slug"]}
    token = auth.bearer(headers, "bearer", "token")
    if not token:
        raise error(401, "Requires authentication")
    with state.lock:
        installation = state.installation_tokens.get(token)
    if installation:
        if installation["expires_at"] <= state.now():
            raise error(401, "Bad credentials")
        identity = {"kind": "installation", "login": config["github_app_slug"] + "[bot]", "type": "Bot"}
    elif token in config["tokens"].get("github", {}):
        identity = {"kind": "user", "login": config["tokens"]["github"][token], "type": "User"}
    else:
        raise error(401, "Bad credentials")
    if op.operation_id in APP_ONLY_OPERATIONS and identity["kind"] != "installation":
        raise error(403, "You must authenticate via a GitHub App.")
    return identity


def spend_rate(state):
    with state.lock:
        if state.now() >= state.rate_window_start + state.rate["reset_in"]:
            state.rate_window_start, state.rate["used"] = state.now(), 0
        if state.rate["used"] >= state.rate["limit"]:
            raise error(403, "API rate limit exceeded for installation ID 1.", headers=state.rate_headers())
        state.rate["used"] += 1


def limit_problems(op, body):
    """The limits GitHub enforces that the OpenAPI description does not state (LIMITS.md)."""
    found = []
    if op.operation_id == "repos/create-commit-status":
        if len(body.get("description") or "") > STATUS_DESCRIPTION_LIMIT:
            found.append(("Status", "description",
                          f"description is too long (maximum is {STATUS_DESCRIPTION_LIMIT} characters)"))
    if op.operation_id in ("issues/create-comment", "issues/update-comment"):
        if isinstance(body.get("body"), str) and len(body["body"]) > COMMENT_BODY_LIMIT:
            found.append(("IssueComment", "body", f"body is too long (maximum is {COMMENT_BODY_LIMIT} characters)"))
    if op.operation_id in ("checks/create", "checks/update"):
        output = body.get("output") if isinstance(body.get("output"), dict) else {}
        for index, note in enumerate(output.get("annotations") or []):
            if not isinstance(note, dict):
                continue
            where = f"output.annotations[{index}]"
            for name in ("message", "raw_details"):
                if isinstance(note.get(name), str) and len(note[name].encode()) > ANNOTATION_TEXT_LIMIT:
                    found.append(("CheckRun", f"{where}.{name}", f"{name} is too long (maximum is 64 KB)"))
            if isinstance(note.get("title"), str) and len(note["title"]) > ANNOTATION_TITLE_LIMIT:
                found.append(("CheckRun", f"{where}.title", "title is too long (maximum is 255 characters)"))
            start, end = note.get("start_line"), note.get("end_line")
            if isinstance(start, int) and (start < 1 or (isinstance(end, int) and end < start)):
                found.append(("CheckRun", f"{where}.start_line", "line numbers start at 1 and end_line >= start_line"))
            if ("start_column" in note or "end_column" in note) and start != end:
                found.append(("CheckRun", f"{where}.start_column",
                              "start_column and end_column are only allowed when start_line equals end_line"))
        if body.get("conclusion") == "stale":
            found.append(("CheckRun", "conclusion", "You cannot change a check run conclusion to stale"))
        if body.get("completed_at") and not body.get("conclusion") and op.operation_id == "checks/create":
            found.append(("CheckRun", "conclusion", "conclusion is required when completed_at is given"))
    return found


def limit_error(found):
    return error(422, "Validation Failed",
                 [{"resource": r, "code": "custom", "field": f, "message": m} for r, f, m in found],
                 problems=[m for _, _, m in found])


def user(identity):
    login = identity["login"]
    return {"login": login, "id": zlib.crc32(login.encode()) % 100000, "type": identity.get("type", "User")}


def repo_url(state, values):
    return f"{state.config['base_url']}/api/v3/repos/{values['owner']}/{values['repo']}"


def handle(state, op, values, query, body, identity):
    kept = state.objects["github"]
    repo = f"{values.get('owner')}/{values.get('repo')}"
    handler = HANDLERS.get(op.operation_id)
    if handler is None:
        raise error(501, f"the stand-in does not answer {op.operation_id}")
    return handler(state, kept, repo, values, query, body, identity)


def create_status(state, kept, repo, values, query, body, identity):
    context = body.get("context") or "default"
    with state.lock:
        same = [s for s in kept["statuses"] if s["repo"] == repo and s["sha"] == values["sha"]
                and s["context"].lower() == context.lower()]
        if len(same) >= STATUSES_PER_CONTEXT:
            raise limit_error([("Status", "context", "This SHA and context has reached the maximum number of statuses.")])
        status_id = state.new_id()
        status = {"id": status_id, "node_id": f"SC_{status_id}", "url": f"{repo_url(state, values)}/statuses/{values['sha']}",
                  "state": body["state"], "description": body.get("description"), "target_url": body.get("target_url"),
                  "context": context, "avatar_url": None, "created_at": state.iso(), "updated_at": state.iso(),
                  "creator": user(identity), "repo": repo, "sha": values["sha"]}
        kept["statuses"].append(status)
    return 201, public(status), {"Location": status["url"]}


def combined_status(state, kept, repo, values, query, body, identity):
    with state.lock:
        latest = {}
        for s in kept["statuses"]:
            if s["repo"] == repo and s["sha"] == values["ref"]:
                latest[s["context"].lower()] = s
    statuses = sorted(latest.values(), key=lambda s: -s["id"])
    states = [s["state"] for s in statuses]
    combined = ("failure" if any(x in ("error", "failure") for x in states) else
                "pending" if not states or "pending" in states else "success")
    page = paged(statuses, query)
    return 200, {"state": combined, "statuses": [public(s) for s in page], "sha": values["ref"],
                 "total_count": len(statuses), "repository": {"full_name": repo},
                 "commit_url": f"{repo_url(state, values)}/commits/{values['ref']}",
                 "url": f"{repo_url(state, values)}/commits/{values['ref']}/status"}, {}


def page_of(query, size_name, default):
    """(page size, page number) as GitHub reads them: at most 100 a page, pages from 1."""
    size = min(max(int(query.get(size_name, [default])[-1]), 1), 100)
    return size, max(int(query.get("page", ["1"])[-1]), 1)


def paged(items, query, size_name="per_page", default=30):
    size, page = page_of(query, size_name, default)
    return items[(page - 1) * size: page * size]


def link_header(state, path, query, total, size_name="per_page", default=30):
    size, page = page_of(query, size_name, default)
    last = max((total + size - 1) // size, 1)
    links = []
    if page < last:
        links.append(f'<{state.config["base_url"]}{path}?{size_name}={size}&page={page + 1}>; rel="next"')
        links.append(f'<{state.config["base_url"]}{path}?{size_name}={size}&page={last}>; rel="last"')
    return {"Link": ", ".join(links)} if links else {}


def check_run_view(state, run):
    view = public(run)
    output = dict(run["output"])
    output["annotations_count"] = len(run["annotations"])
    output["annotations_url"] = f"{run['url']}/annotations"
    view["output"] = output
    return view


def create_check_run(state, kept, repo, values, query, body, identity):
    with state.lock:
        run_id = state.new_id()
        run = {"id": run_id, "node_id": f"CR_{run_id}", "head_sha": body["head_sha"], "name": body["name"],
               "external_id": body.get("external_id"), "details_url": body.get("details_url"),
               "url": f"{repo_url(state, values)}/check-runs/{run_id}",
               "html_url": f"https://github.example/{repo}/runs/{run_id}", "status": "queued", "conclusion": None,
               "started_at": state.iso(), "completed_at": None, "output": {"title": None, "summary": None, "text": None},
               "annotations": [], "check_suite": {"id": 1}, "app": app(state), "pull_requests": [], "repo": repo}
        apply_check_run(state, run, body)
        kept["check_runs"].append(run)
    return 201, check_run_view(state, run), {}


def app(state):
    return {"id": state.config.get("github_app_id"), "slug": state.config["github_app_slug"],
            "name": state.config["github_app_slug"]}


def apply_check_run(state, run, body):
    for name in ("name", "external_id", "details_url", "started_at", "completed_at", "status"):
        if name in body:
            run[name] = body[name]
    if body.get("conclusion"):
        run["conclusion"], run["status"] = body["conclusion"], "completed"
        run["completed_at"] = body.get("completed_at") or run["completed_at"] or state.iso()
    output = body.get("output")
    if isinstance(output, dict):
        for name in ("title", "summary", "text"):
            if name in output:
                run["output"][name] = output[name]
        run["annotations"] += output.get("annotations") or []


def find_check_run(kept, repo, run_id):
    for run in kept["check_runs"]:
        if run["repo"] == repo and str(run["id"]) == str(run_id):
            return run
    raise not_found()


def update_check_run(state, kept, repo, values, query, body, identity):
    with state.lock:
        run = find_check_run(kept, repo, values["check_run_id"])
        apply_check_run(state, run, body)
    return 200, check_run_view(state, run), {}


def get_check_run(state, kept, repo, values, query, body, identity):
    with state.lock:
        return 200, check_run_view(state, find_check_run(kept, repo, values["check_run_id"])), {}


def list_check_runs(state, kept, repo, values, query, body, identity):
    with state.lock:
        runs = [r for r in kept["check_runs"] if r["repo"] == repo and r["head_sha"] == values["ref"]]
    if "check_name" in query:
        runs = [r for r in runs if r["name"] == query["check_name"][-1]]
    if "status" in query:
        runs = [r for r in runs if r["status"] == query["status"][-1]]
    if "app_id" in query:
        runs = [r for r in runs if str(r["app"]["id"]) == query["app_id"][-1]]
    if query.get("filter", ["latest"])[-1] == "latest":
        newest = {}
        for r in runs:
            newest[r["name"]] = r
        runs = list(newest.values())
    runs.sort(key=lambda r: -r["id"])
    return 200, {"total_count": len(runs), "check_runs": [check_run_view(state, r) for r in paged(runs, query)]}, {}


def create_comment(state, kept, repo, values, query, body, identity):
    with state.lock:
        comment = new_comment(state, repo, int(values["issue_number"]), body["body"], user(identity))
        kept["comments"].append(comment)
    return 201, public(comment), {"Location": comment["url"]}


def new_comment(state, repo, number, text, author):
    comment_id = state.new_id()
    base = f"{state.config['base_url']}/api/v3/repos/{repo}"
    return {"id": comment_id, "node_id": f"IC_{comment_id}", "url": f"{base}/issues/comments/{comment_id}",
            "html_url": f"https://github.example/{repo}/pull/{number}#issuecomment-{comment_id}",
            "issue_url": f"{base}/issues/{number}", "body": text, "user": author,
            "created_at": state.iso(), "updated_at": state.iso(), "author_association": "NONE",
            "repo": repo, "number": number}


def list_comments(state, kept, repo, values, query, body, identity):
    with state.lock:
        comments = [c for c in kept["comments"] if c["repo"] == repo and c["number"] == int(values["issue_number"])]
    if "since" in query:
        comments = [c for c in comments if c["updated_at"] >= query["since"][-1]]
    path = f"/api/v3/repos/{repo}/issues/{values['issue_number']}/comments"
    return 200, [public(c) for c in paged(comments, query)], link_header(state, path, query, len(comments))


def update_comment(state, kept, repo, values, query, body, identity):
    with state.lock:
        for comment in kept["comments"]:
            if comment["repo"] == repo and str(comment["id"]) == values["comment_id"]:
                comment["body"], comment["updated_at"] = body["body"], state.iso()
                return 200, public(comment), {}
    raise not_found()


def get_pull(state, kept, repo, values, query, body, identity):
    pull = state.pull("github", repo, int(values["pull_number"]))
    if not pull:
        raise not_found()
    head_repo = pull.get("head_repo") or repo
    return 200, {"id": pull["number"] + 500, "number": pull["number"], "state": pull.get("state", "open"),
                 "title": pull.get("title", f"Pull request {pull['number']}"), "draft": False,
                 "merged": pull.get("merged", False), "mergeable": None,
                 "head": {"sha": pull["head_sha"], "ref": pull.get("head_ref", "feature"),
                          "label": f"{head_repo.split('/')[0]}:{pull.get('head_ref', 'feature')}",
                          "repo": {"full_name": head_repo, "fork": head_repo != repo}},
                 "base": {"sha": pull.get("base_sha", "0" * 40), "ref": pull.get("base_ref", "main"),
                          "repo": {"full_name": repo, "fork": False}},
                 "user": {"login": pull.get("author", "octocat"), "id": 1, "type": "User"}}, {}


def create_installation_token(state, kept, repo, values, query, body, identity):
    installation_id = int(values["installation_id"])
    if installation_id not in state.config["github_installations"]:
        raise not_found()
    token = auth.new_installation_token()
    expires_at = state.now() + state.config["github_token_ttl"]
    with state.lock:
        state.installation_tokens[token] = {"installation_id": installation_id, "expires_at": expires_at}
    return 201, {"token": token, "expires_at": state.iso(expires_at),
                 "permissions": {"checks": "write", "statuses": "write", "pull_requests": "write", "metadata": "read"},
                 "repository_selection": "all"}, {}


def get_app(state, kept, repo, values, query, body, identity):
    return 200, dict(app(state), owner={"login": "standin"}, permissions={"checks": "write", "statuses": "write"}), {}


def get_repo(state, kept, repo, values, query, body, identity):
    return 200, {"id": 1, "full_name": repo, "name": values["repo"], "private": True,
                 "permissions": {"admin": False, "push": True, "pull": True}}, {}


def get_repo_installation(state, kept, repo, values, query, body, identity):
    return 200, {"id": sorted(state.config["github_installations"])[0], "app_id": state.config.get("github_app_id"),
                 "permissions": {"checks": "write", "statuses": "write", "pull_requests": "write", "metadata": "read"}}, {}


def rate_limit(state, kept, repo, values, query, body, identity):
    headers = state.rate_headers()
    core = {"limit": int(headers["X-RateLimit-Limit"]), "remaining": int(headers["X-RateLimit-Remaining"]),
            "reset": int(headers["X-RateLimit-Reset"]), "used": int(headers["X-RateLimit-Used"])}
    return 200, {"resources": {"core": core}, "rate": core}, {}


def get_user(state, kept, repo, values, query, body, identity):
    return 200, user(identity), {}


def public(record):
    """An object as the API shows it, without the stand-in's own bookkeeping."""
    return {k: v for k, v in record.items() if k not in ("repo", "sha", "number", "annotations")}


HANDLERS = {
    "repos/create-commit-status": create_status, "repos/get-combined-status-for-ref": combined_status,
    "checks/create": create_check_run, "checks/update": update_check_run, "checks/get": get_check_run,
    "checks/list-for-ref": list_check_runs, "issues/create-comment": create_comment,
    "issues/list-comments": list_comments, "issues/update-comment": update_comment, "pulls/get": get_pull,
    "apps/create-installation-access-token": create_installation_token, "apps/get-authenticated": get_app,
    "repos/get": get_repo, "apps/get-repo-installation": get_repo_installation, "rate-limit/get": rate_limit,
    "users/get-authenticated": get_user,
}
ANSWERED = set(HANDLERS)
