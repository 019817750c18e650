"""Gitea's and Forgejo's API as the stand-in answers it (API-NOTES.md): token auth, `status` in responses."""
import zlib

from . import github
from .store import ApiError


ANSWERED = {"repoCreateStatus", "repoListStatuses", "repoGetCombinedStatusByRef", "issueCreateComment",
            "issueGetComments", "issueEditComment", "repoGetPullRequest", "userGetCurrent"}


def error(status, message, problems=None):
    return ApiError(status, {"message": message, "url": "https://gitea.example/api/swagger"}, None,
                    problems or [message])


def not_found():
    return error(404, "The target couldn't be found.")


def wrong_method(allowed):
    return error(405, "Method Not Allowed")


def schema_error(problems):
    return error(422, "; ".join(f"{where.strip('/') or 'body'}: {message}" for where, message in problems),
                 [f"{w or '/'}: {m}" for w, m in problems])


def parameter_error(problems, in_path):
    if in_path:
        return error(404, "The target couldn't be found.", [m for _, m in problems])
    return error(422, "; ".join(m for _, m in problems), [m for _, m in problems])


def authenticate(state, op, headers, query):
    """`Authorization: token …` (or `Bearer`); the query forms are deprecated for removal in 1.23 (swagger)."""
    if "token" in query or "access_token" in query:
        raise error(401, "the token and access_token query parameters are deprecated; send an Authorization header",
                    ["token passed in the query string (deprecated, removed in Gitea 1.23)"])
    token = github.auth.bearer(headers, "token", "bearer")
    if not token:
        raise error(401, "token is required")
    login = state.config["tokens"].get("gitea", {}).get(token)
    if login is None:
        raise error(401, "user does not exist [uid: 0, name: ]")
    return {"login": login}


def limit_problems(op, body):
    return []


def user(identity):
    login = identity["login"]
    return {"id": zlib.crc32(login.encode()) % 100000, "login": login, "username": login, "full_name": login}


def handle(state, op, values, query, body, identity):
    if op.operation_id == "userGetCurrent":
        return 200, user(identity), {}
    kept = state.objects["gitea"]
    repo = f"{values['owner']}/{values['repo']}"
    base = f"{state.config['base_url']}/api/v1/repos/{repo}"
    with state.lock:
        if op.operation_id == "repoCreateStatus":
            status_id = state.new_id()
            status = {"id": status_id, "status": body["state"], "target_url": body.get("target_url", ""),
                      "description": body.get("description", ""), "context": body.get("context", ""),
                      "url": f"{base}/statuses/{values['sha']}", "creator": user(identity),
                      "created_at": state.iso(), "updated_at": state.iso(), "repo": repo, "sha": values["sha"]}
            kept["statuses"].append(status)
            return 201, github.public(status), {}
        if op.operation_id in ("repoListStatuses", "repoGetCombinedStatusByRef"):
            key = values.get("sha") or values.get("ref")
            statuses = [s for s in kept["statuses"] if s["repo"] == repo and s["sha"] == key]
            if op.operation_id == "repoListStatuses":
                if "state" in query:
                    statuses = [s for s in statuses if s["status"] == query["state"][-1]]
                statuses.sort(key=lambda s: -s["id"])
                return 200, [github.public(s) for s in github.paged(statuses, query, "limit")], {
                    "X-Total-Count": str(len(statuses))}
            latest = {}
            for s in statuses:
                latest[s["context"]] = s
            order = ["error", "failure", "warning", "pending", "success"]
            states = [s["status"] for s in latest.values()]
            combined = min(states, key=order.index) if states else "pending"
            return 200, {"state": combined, "sha": key, "total_count": len(latest),
                         "statuses": [github.public(s) for s in latest.values()],
                         "repository": {"full_name": repo}, "commit_url": f"{base}/commits/{key}",
                         "url": f"{base}/commits/{key}/status"}, {}
        if op.operation_id == "issueCreateComment":
            number = int(values["index"])
            comment = github.new_comment(state, repo, number, body["body"], user(identity))
            comment = {k: comment[k] for k in ("id", "body", "user", "created_at", "updated_at", "repo", "number")}
            comment.update(html_url=f"https://gitea.example/{repo}/pulls/{number}#issuecomment-{comment['id']}",
                           issue_url=f"https://gitea.example/{repo}/issues/{number}",
                           pull_request_url=f"https://gitea.example/{repo}/pulls/{number}", assets=[],
                           original_author="", original_author_id=0)
            kept["comments"].append(comment)
            return 201, github.public(comment), {}
        if op.operation_id == "issueGetComments":
            comments = [c for c in kept["comments"] if c["repo"] == repo and c["number"] == int(values["index"])]
            if "since" in query:
                comments = [c for c in comments if c["updated_at"] >= query["since"][-1]]
            return 200, [github.public(c) for c in comments], {}
        if op.operation_id == "issueEditComment":
            for comment in kept["comments"]:
                if comment["repo"] == repo and str(comment["id"]) == values["id"]:
                    if comment["user"]["login"] != identity["login"]:
                        raise error(403, "user should be the comment poster")
                    comment["body"], comment["updated_at"] = body["body"], state.iso()
                    return 200, github.public(comment), {}
            raise not_found()
        if op.operation_id == "repoGetPullRequest":
            pull = state.pull("gitea", repo, int(values["index"]))
            if not pull:
                raise not_found()
            head_repo = pull.get("head_repo") or repo
            return 200, {"id": pull["number"] + 500, "number": pull["number"], "state": pull.get("state", "open"),
                         "title": pull.get("title", f"Pull request {pull['number']}"), "merged": pull.get("merged", False),
                         "mergeable": True, "html_url": f"https://gitea.example/{repo}/pulls/{pull['number']}",
                         "head": {"sha": pull["head_sha"], "ref": pull.get("head_ref", "feature"),
                                  "label": pull.get("head_ref", "feature"), "repo": {"full_name": head_repo,
                                                                                       "fork": head_repo != repo}},
                         "base": {"sha": pull.get("base_sha", "0" * 40), "ref": pull.get("base_ref", "main"),
                                  "label": pull.get("base_ref", "main"), "repo": {"full_name": repo, "fork": False}},
                         "user": {"login": pull.get("author", "gitea-user"), "id": 1}}, {}
    raise error(501, f"the stand-in does not answer {op.operation_id}")
