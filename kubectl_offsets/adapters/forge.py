"""Pull requests (GitHub REST API) and merge requests (GitLab API) over urllib, with a token from the environment.

The token is sent only in a request header and never appears in output, logs, errors or the compare URL. Without a
token nothing is sent: the caller prints the compare URL for a person to open. A redirect is followed only for a GET
on the same scheme, host and port (a renamed repository), so the token never reaches another host; a POST that is
answered with a redirect is not sent again (as a GET or otherwise): it says so instead.

Endpoints (documented, and asserted by tests/integration/gitops/test_forge_contract.py):
- GitHub: ``GET  /repos/{owner}/{repo}/pulls?head={owner}:{branch}&state=open`` (an open PR for the branch?)
          ``POST /repos/{owner}/{repo}/pulls`` with ``{"title", "head", "base", "body"}``
- GitLab: ``GET  /projects/{url-encoded path}/merge_requests?source_branch={branch}&state=opened``
          ``POST /projects/{url-encoded path}/merge_requests`` with ``{"source_branch", "target_branch",
          "title", "description"}``
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from ..errors import ForbiddenError, InputError, OffsetsError

TOKEN_ENV = {"github": "GITHUB_TOKEN", "gitlab": "GITLAB_TOKEN"}
FORGE_URL_ENV = "KUBECTL_OFFSETS_FORGE_URL"


class ForgeError(OffsetsError):
    """The forge refused or failed the request."""


@dataclass(frozen=True)
class Remote:
    forge: str  # "github" or "gitlab"
    host: str
    project: str  # owner/repo, or group/subgroup/project

    @property
    def request_words(self) -> str:
        return "pull request" if self.forge == "github" else "merge request"

    @property
    def web(self) -> str:
        return f"https://{self.host}/{self.project}"

    def api_base(self, override: str | None = None) -> str:
        override = override or os.environ.get(FORGE_URL_ENV)
        if override:
            return override.rstrip("/")
        if self.forge == "github":
            return "https://api.github.com" if self.host == "github.com" else f"https://{self.host}/api/v3"
        return f"https://{self.host}/api/v4"


def parse_remote(url: str, forge: str | None = None) -> Remote:
    """``git@github.com:o/r.git``, ``https://gitlab.example/g/s/p.git``, ``ssh://git@host:22/o/r`` -> Remote."""
    m = re.match(r"^(?:[a-z+]+://)?(?:[^@/]+@)?([^/:]+)(?::\d+)?[:/](.+?)(?:\.git)?/?$", url)
    if not m:
        raise InputError(f"--pr: cannot tell the forge's host and project from the remote URL {_redact(url)}",
                         advice="name them: --forge-project OWNER/REPO (GitHub) or GROUP/PROJECT (GitLab), with "
                                "--forge github|gitlab and --forge-url for a self-hosted one")
    host, project = m.group(1), m.group(2)
    kind = forge or ("github" if "github" in host else "gitlab" if "gitlab" in host else None)
    if kind is None:
        raise InputError(f"--pr: cannot tell whether {host} is GitHub or GitLab",
                         advice="pass --forge github|gitlab (and --forge-project if the remote URL does not name it)")
    return Remote(kind, host, project)


def check_api_url(url: str) -> None:
    """--forge-url names where the API is, never who we are: the token comes from the environment only, so a
    credential in the URL is refused (and never echoed)."""
    try:
        parts = urllib.parse.urlsplit(url)
        has_credentials = parts.username is not None or parts.password is not None
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise InputError(f"--forge-url {_redact(url)[:80]} is not a valid URL",
                         advice="for example: https://github.example.com/api/v3") from None
    if has_credentials:
        raise InputError(f"--forge-url {_redact(url)[:80]} contains credentials",
                         advice=f"remove them; the token is read from {' or '.join(TOKEN_ENV.values())}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--forge-url {_redact(url)[:80]} is not an http(s) URL",
                         advice="for example: https://github.example.com/api/v3")


def compare_url(remote: Remote, base: str, branch: str) -> str:
    """The page where a person opens the pull/merge request by hand (no token in it, ever)."""
    q = urllib.parse.quote
    if remote.forge == "github":
        return f"{remote.web}/compare/{q(base)}...{q(branch)}?expand=1"
    return (f"{remote.web}/-/merge_requests/new?merge_request%5Bsource_branch%5D={q(branch, safe='')}"
            f"&merge_request%5Btarget_branch%5D={q(base, safe='')}")


def token_for(remote: Remote) -> str | None:
    return os.environ.get(TOKEN_ENV[remote.forge]) or None


def open_request(remote: Remote, token: str, *, base: str, branch: str, title: str, body: str,
                 api: str | None = None) -> tuple[str, bool]:
    """Open a pull/merge request for ``branch`` unless one is already open; returns (web URL, created)."""
    if remote.forge == "github":
        return _github(remote, token, api, base, branch, title, body)
    return _gitlab(remote, token, api, base, branch, title, body)


def _github(remote: Remote, token: str, api: str | None, base: str, branch: str, title: str, body: str):
    root = f"{remote.api_base(api)}/repos/{remote.project}/pulls"
    owner = remote.project.split("/")[0]
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
               "X-GitHub-Api-Version": "2022-11-28"}
    query = urllib.parse.urlencode({"head": f"{owner}:{branch}", "state": "open"})
    existing = _listed_requests(_call("GET", f"{root}?{query}", headers), root)
    if existing:
        return _web_url(existing[0], "html_url", "GET", root), False
    created = _call("POST", root, headers, {"title": title, "head": branch, "base": base, "body": body})
    return _web_url(created, "html_url", "POST", root), True


def _gitlab(remote: Remote, token: str, api: str | None, base: str, branch: str, title: str, body: str):
    root = f"{remote.api_base(api)}/projects/{urllib.parse.quote(remote.project, safe='')}/merge_requests"
    headers = {"PRIVATE-TOKEN": token}
    query = urllib.parse.urlencode({"source_branch": branch, "state": "opened"})
    existing = _listed_requests(_call("GET", f"{root}?{query}", headers), root)
    if existing:
        return _web_url(existing[0], "web_url", "GET", root), False
    created = _call("POST", root, headers, {"source_branch": branch, "target_branch": base, "title": title,
                                            "description": body})
    return _web_url(created, "web_url", "POST", root), True


def _listed_requests(answer: Any, url: str) -> list[Any]:
    if not isinstance(answer, list):
        raise _unexpected("GET", url, "a list of requests")
    return answer


def _web_url(answer: Any, key: str, method: str, url: str) -> str:
    value = answer.get(key) if isinstance(answer, dict) else None
    if not isinstance(value, str):
        raise _unexpected(method, url, f"a request with its {key}")
    return value


def _unexpected(method: str, url: str, wanted: str) -> ForgeError:
    return ForgeError(f"{method} {urllib.parse.urlsplit(url).path} did not answer with {wanted}",
                      advice="check that --forge and --forge-url name this forge's API")


def _call(method: str, url: str, headers: dict[str, str], payload: Any = None) -> Any:
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        **headers, "Content-Type": "application/json", "User-Agent": "kubectl-offsets"})
    try:
        with _OPENER.open(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise _http_error(method, url, error) from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or type(error).__name__
        raise ForgeError(f"cannot reach {_host(url)}: {reason}", advice="check --forge-url and the network") from None


class _SameHostRedirects(urllib.request.HTTPRedirectHandler):
    """urllib's own handler follows a redirect to any host with every header, the token's included, and turns a
    POST answered 301/302/303 into a GET. This one follows a GET on the same scheme, host and port only."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        method, where = req.get_method(), urllib.parse.urlsplit(req.full_url).path
        if method != "GET":
            fp.close()
            raise ForgeError(f"{method} {where} was answered {code}, a redirect to {_host(newurl)}"
                             f"{urllib.parse.urlsplit(newurl).path}: the request was not sent again",
                             advice="the project may have moved: give its current name with --forge-project (or "
                                    "the API's address with --forge-url)")
        if _origin(newurl) != _origin(req.full_url):
            fp.close()
            raise ForgeError(f"GET {where} was redirected to another host ({_host(newurl)}): not followed, so the "
                             "token is not sent there",
                             advice="give the API's own address with --forge-url")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameHostRedirects)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port


def _http_error(method: str, url: str, error: urllib.error.HTTPError) -> OffsetsError:
    try:
        message = json.loads(error.read() or b"{}").get("message")
    except (ValueError, AttributeError):
        message = None
    where = urllib.parse.urlsplit(url).path
    text = f"{method} {where} returned {error.code}" + (f": {message}" if message else "")
    if error.code in (401, 403):
        return ForbiddenError(text, advice="check that the token in the environment is valid and may open "
                                           "pull/merge requests in this project")
    return ForgeError(text, advice="check --forge-project and --pr-base")


def _redact(url: str) -> str:
    """A remote URL without credentials (``https://user:token@host`` -> ``https://***@host``)."""
    return re.sub(r"//[^@/]+@", "//***@", url)


def _host(url: str) -> str:
    """host[:port] of a URL, without any credentials it may carry."""
    try:
        parts = urllib.parse.urlsplit(url)
        return (parts.hostname or "?") + (f":{parts.port}" if parts.port else "")
    except ValueError:
        return "the forge"
