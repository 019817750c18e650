"""What the stand-in holds: its configuration, clock, objects, recorded requests, faults and deliveries."""
import datetime
import re
import threading
import time


class ApiError(Exception):
    """A refusal shaped as the forge words it: status, JSON body, extra headers."""

    def __init__(self, status, body, headers=None, problems=None):
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}
        self.problems = problems or []


class State:
    def __init__(self, config):
        self.lock = threading.RLock()
        self.config = config  # tokens, app ids and key, hook receiver defaults
        self.clock_offset = 0
        self.reset()

    def reset(self):
        with self.lock:
            self.next_id = 1000
            self.requests = []
            self.faults = []
            self.deliveries = []
            self.sink = []
            self.sink_status = 200
            self.objects = {forge: {"statuses": [], "comments": [], "check_runs": [], "pulls": []}
                            for forge in ("github", "gitea", "gitlab")}
            self.installation_tokens = {}  # token -> {"installation_id", "expires_at"}
            self.rate = {"limit": 5000, "used": 0, "reset_in": 3600}
            self.rate_window_start = self.now()

    def now(self):
        return int(time.time()) + self.clock_offset

    def iso(self, at=None):
        at = self.now() if at is None else at
        return datetime.datetime.fromtimestamp(at, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    def new_id(self):
        with self.lock:
            self.next_id += 1
            return self.next_id

    def rate_headers(self):
        with self.lock:
            remaining = max(self.rate["limit"] - self.rate["used"], 0)
            return {"X-RateLimit-Limit": str(self.rate["limit"]), "X-RateLimit-Remaining": str(remaining),
                    "X-RateLimit-Reset": str(self.rate_window_start + self.rate["reset_in"]),
                    "X-RateLimit-Used": str(self.rate["used"]), "X-RateLimit-Resource": "core"}

    def take_fault(self, forge, method, path):
        """The first scripted fault that matches this request, with one use spent; None when none does."""
        with self.lock:
            for fault in self.faults:
                if fault["remaining"] <= 0:
                    continue
                if fault.get("forge") and fault["forge"] != forge:
                    continue
                if fault.get("method") and fault["method"].upper() != method:
                    continue
                if fault.get("path") and not re.search(fault["path"], path):
                    continue
                fault["remaining"] -= 1
                return dict(fault)
            return None

    def pull(self, forge, repo, number):
        with self.lock:
            for pull in self.objects[forge]["pulls"]:
                if pull["repo"] == repo and pull["number"] == number:
                    return pull
            return None
