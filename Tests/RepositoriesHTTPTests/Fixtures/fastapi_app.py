"""A FastAPI app written the way FastAPI's tutorial writes one, for the HTTPRepository tests.

Four resources, kept in memory:
    /notes/    server-assigned integer IDs and a created_at timestamp (NoteCreate has no id)
    /tasks/    client-chosen UUIDs (TaskCreate takes an optional id; a known one answers 409)
    /findings/ client-chosen UUIDs, each naming its task (task_id): a write whose task does
               not exist answers 422, as a foreign key would, and is counted
               (orphans_refused in /__stats)
    /scores/   client-chosen integer IDs, listed by Docs/Queries.md's query convention
               (field lookups, order_by, offset and limit)
Lists are plain arrays read with ?offset=&limit= (limit at most 100); PUT only replaces
(404 for an unknown ID; 412 with If-None-Match: * for a known one); DELETE answers
{"ok": true}, or 404.

Switches, as a real server behaves, so the tests see what a byte-for-byte echo hides. All
are off until a test turns them on with PUT /__switches (a Switches object; GET reads them):
    normalize_dates          a task's due_at is stored truncated to milliseconds and
                             written back at +02:00, as a database and another zone would
    stamp_updated_at         every write of a task sets its updated_at to the server's clock
    honour_idempotency_keys  a write whose Idempotency-Key was answered before is answered
                             that first answer again and not applied (the key on another
                             method or path answers 422)
    keep_answers             which answers a key keeps: "all" but a 5xx (a PUT's 404
                             included), or only "applied" ones (2xx), as a server that
                             forgets a request that changed nothing
    refuse                   task IDs whose writes answer 422, as validation would
    lose_answers             the probability that a write answered 2xx loses its answer: it
                             was applied, then the connection drops after the headers
                             (lost_answer "drop") or the client hears 504 from the gateway
                             in front ("504"); drawn from a generator seeded with seed
    lose_next                the next N writes answered 2xx lose their answer, as above
    answer_late              the next N writes arrive late_delay seconds after they were
                             sent, after the client timed out: only then is their key
                             checked and are they applied
Each resource serves its change feed at /notes/changes, /tasks/changes, /findings/changes and /scores/changes
(?since=&limit=, Docs/HTTP.md's convention; the scores' feed also takes the lookups of
/scores/, for a reader that syncs only that subset); POST /__forget_deletions?resource=R forgets R's tombstones, so
older cursors answer 410.

Every change applied (a create, a replace, a delete that removed something) is kept in
order with the request's Idempotency-Key and body: GET /__applications?since=N reads those
after the N-th. GET /__stats counts the answers replayed and lost, the writes held late and
those of them that have landed since, the scores' feed pages and the score bodies they
sent, and the score replacements applied.

Run by the tests: it binds 127.0.0.1 on a free port, prints the port on one line of stdout,
and serves until its stdin closes.
"""

import asyncio
import logging
import random
import socket
import sys
import threading
import uuid
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, Literal

import uvicorn
from fastapi import FastAPI, Header, HTTPException, Query, Request
from pydantic import BaseModel

app = FastAPI()
lock = threading.Lock()


class NoteBase(BaseModel):
    title: str
    done: bool = False


class NoteCreate(NoteBase):
    pass


class Note(NoteBase):
    id: int
    created_at: datetime


class TaskBase(BaseModel):
    title: str
    rank: int = 0
    done: bool = False
    due_at: datetime | None = None
    updated_at: datetime | None = None


class TaskCreate(TaskBase):
    id: uuid.UUID | None = None


class Task(TaskBase):
    id: uuid.UUID


class FindingBase(BaseModel):
    task_id: uuid.UUID
    note: str


class FindingCreate(FindingBase):
    id: uuid.UUID | None = None


class Finding(FindingBase):
    id: uuid.UUID


class Switches(BaseModel):
    normalize_dates: bool = False
    stamp_updated_at: bool = False
    honour_idempotency_keys: bool = False
    keep_answers: Literal["all", "applied"] = "all"
    refuse: list[uuid.UUID] = []
    lose_answers: float = 0.0
    lose_next: int = 0
    lost_answer: Literal["drop", "504"] = "drop"
    answer_late: int = 0
    late_delay: float = 0.0
    seed: int = 0


class Application(BaseModel):
    seq: int
    kind: Literal["create", "replace", "delete"]
    resource: str
    id: str
    idempotency_key: str | None
    sent: dict[str, Any] | None
    stored: dict[str, Any] | None


notes: dict[int, Note] = {}
tasks: dict[uuid.UUID, Task] = {}
findings: dict[uuid.UUID, Finding] = {}
next_note_id = 1
switches = Switches()
applications: list[Application] = []
stats = {"orphans_refused": 0, "replayed": 0, "lost": 0, "late": 0, "late_landed": 0, "score_pages": 0, "score_bodies_sent": 0,
         "score_writes": 0}


class Feed:
    """One resource's change feed (Docs/HTTP.md's convention): the number of every item's
    last change, oldest first, and where forgotten deletions end. A cursor is
    "<epoch>:<number>:<forgets>": the epoch is this process's, so a cursor from before a
    restart is refused; one handed out before the deletions were last forgotten, and below
    them, is refused too."""

    def __init__(self):
        self.epoch = uuid.uuid4().hex[:8]
        self.number = 0
        self.last: dict[Any, int] = {}  # item ID -> number of its last change, oldest first
        self.forgotten_below = 0
        self.forgets = 0

    def changed(self, item_id):
        self.number += 1
        self.last.pop(item_id, None)
        self.last[item_id] = self.number

    def forget_deletions(self, items):
        for item_id in [i for i in self.last if i not in items]:
            del self.last[item_id]
        self.forgotten_below = self.number
        self.forgets += 1

    def page(self, since: str | None, limit: int, items: dict):
        """(saved, deleted, next, more) after the cursor `since`; 410 when it cannot answer."""
        after = 0
        if since is not None:
            parts = since.split(":")
            canonical = len(parts) == 3 and all(p.isdigit() and p == str(int(p)) for p in parts[1:])
            if not canonical or parts[0] != self.epoch or int(parts[1]) > self.number or (
                    int(parts[2]) < self.forgets and int(parts[1]) < self.forgotten_below):
                raise HTTPException(status_code=410, detail="The cursor is too old, or not this server's")
            after = int(parts[1])
        saved, deleted, number, more = [], [], after, False
        for item_id, changed in self.last.items():
            if changed <= after or (since is None and item_id not in items):
                continue  # a reader from scratch has no use for tombstones
            if len(saved) + len(deleted) == limit:
                more = True
                break
            if item_id in items:
                saved.append(items[item_id])
            else:
                deleted.append(item_id)
            number = changed
        if not more:
            number = self.number
        return saved, deleted, "%s:%d:%d" % (self.epoch, number, self.forgets), more


feeds = {"notes": Feed(), "tasks": Feed(), "findings": Feed(), "scores": Feed()}


class NoteChanges(BaseModel):
    saved: list[Note]
    deleted: list[int]
    next: str
    more: bool


class TaskChanges(BaseModel):
    saved: list[Task]
    deleted: list[uuid.UUID]
    next: str
    more: bool


class FindingChanges(BaseModel):
    saved: list[Finding]
    deleted: list[uuid.UUID]
    next: str
    more: bool


def applied(kind, resource, item_id, key, sent, stored):
    """Keeps one applied change, and numbers it in the resource's feed; called with the lock
    held."""
    feeds[resource].changed(item_id)
    applications.append(Application(
        seq=len(applications) + 1, kind=kind, resource=resource, id=str(item_id), idempotency_key=key,
        sent=sent.model_dump(mode="json") if sent else None,
        stored=stored.model_dump(mode="json") if stored else None))


def as_stored(task: TaskCreate, task_id: uuid.UUID) -> Task:
    """The task as this server keeps it, with the normalising and stamping switched on."""
    stored = Task(**task.model_dump(exclude={"id"}), id=task_id)
    if switches.normalize_dates and stored.due_at is not None:
        due = stored.due_at.replace(microsecond=stored.due_at.microsecond // 1000 * 1000)
        stored.due_at = due.astimezone(timezone(timedelta(hours=2)))
    if switches.stamp_updated_at:
        stored.updated_at = datetime.now(timezone.utc)
    return stored


def refuse_if_asked(task_id: uuid.UUID):
    if task_id in switches.refuse:
        raise HTTPException(status_code=422, detail=[{
            "type": "value_error", "loc": ["body", "title"], "input": str(task_id),
            "msg": "Value error, this server refuses the task (a refusal the test asked for)"}])


@app.put("/__switches")
def set_switches(new: Switches) -> Switches:
    global switches
    with lock:
        switches = new
        hostile.random = random.Random(new.seed)
    return switches


@app.get("/__switches")
def read_switches() -> Switches:
    return switches


@app.get("/__applications")
def read_applications(since: int = 0) -> list[Application]:
    with lock:
        return applications[since:]


@app.post("/__forget_deletions", status_code=204)
def forget_deletions(resource: Literal["notes", "tasks"]):
    with lock:
        feeds[resource].forget_deletions(notes if resource == "notes" else tasks)


@app.get("/__stats")
def read_stats() -> dict[str, int]:
    with lock:
        return dict(stats, applications=len(applications))


@app.post("/notes/", status_code=201)
def create_note(note: NoteCreate, idempotency_key: Annotated[str | None, Header()] = None) -> Note:
    global next_note_id
    with lock:
        stored = Note(id=next_note_id, created_at=datetime.now(timezone.utc), **note.model_dump())
        notes[stored.id] = stored
        next_note_id += 1
        applied("create", "notes", stored.id, idempotency_key, note, stored)
    return stored


@app.get("/notes/")
def read_notes(offset: int = 0, limit: Annotated[int, Query(le=100)] = 100) -> list[Note]:
    with lock:
        return list(notes.values())[offset:offset + limit]


@app.get("/notes/changes")
def read_note_changes(since: str | None = None, limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> NoteChanges:
    with lock:
        saved, deleted, next_cursor, more = feeds["notes"].page(since, limit, notes)
        return NoteChanges(saved=saved, deleted=deleted, next=next_cursor, more=more)


@app.get("/notes/{note_id}")
def read_note(note_id: int) -> Note:
    note = notes.get(note_id)
    if note is None:
        raise HTTPException(status_code=404, detail="Note not found")
    return note


@app.put("/notes/{note_id}")
def update_note(note_id: int, note: NoteCreate,
                idempotency_key: Annotated[str | None, Header()] = None) -> Note:
    with lock:
        if note_id not in notes:
            raise HTTPException(status_code=404, detail="Note not found")
        stored = notes[note_id].model_copy(update=note.model_dump())
        notes[note_id] = stored
        applied("replace", "notes", note_id, idempotency_key, note, stored)
    return stored


@app.delete("/notes/{note_id}")
def delete_note(note_id: int, idempotency_key: Annotated[str | None, Header()] = None):
    with lock:
        if notes.pop(note_id, None) is None:
            raise HTTPException(status_code=404, detail="Note not found")
        applied("delete", "notes", note_id, idempotency_key, None, None)
    return {"ok": True}


@app.post("/tasks/", status_code=201)
def create_task(task: TaskCreate, idempotency_key: Annotated[str | None, Header()] = None) -> Task:
    with lock:
        task_id = task.id or uuid.uuid4()
        refuse_if_asked(task_id)
        if task_id in tasks:
            raise HTTPException(status_code=409, detail="Task already exists")
        stored = as_stored(task, task_id)
        tasks[task_id] = stored
        applied("create", "tasks", task_id, idempotency_key, task, stored)
    return stored


@app.get("/tasks/")
def read_tasks(offset: int = 0, limit: Annotated[int, Query(le=100)] = 100) -> list[Task]:
    with lock:
        return list(tasks.values())[offset:offset + limit]


@app.get("/tasks/changes")
def read_task_changes(since: str | None = None, limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> TaskChanges:
    with lock:
        saved, deleted, next_cursor, more = feeds["tasks"].page(since, limit, tasks)
        return TaskChanges(saved=saved, deleted=deleted, next=next_cursor, more=more)


@app.get("/tasks/{task_id}")
def read_task(task_id: uuid.UUID) -> Task:
    task = tasks.get(task_id)
    if task is None:
        raise HTTPException(status_code=404, detail="Task not found")
    return task


@app.put("/tasks/{task_id}")
def update_task(task_id: uuid.UUID, task: TaskCreate,
                idempotency_key: Annotated[str | None, Header()] = None,
                if_none_match: Annotated[str | None, Header()] = None) -> Task:
    with lock:
        refuse_if_asked(task_id)
        if if_none_match == "*" and task_id in tasks:
            raise HTTPException(status_code=412, detail="Task already exists")
        if task_id not in tasks:
            raise HTTPException(status_code=404, detail="Task not found")
        stored = as_stored(task, task_id)
        tasks[task_id] = stored  # a replaced task keeps its place
        applied("replace", "tasks", task_id, idempotency_key, task, stored)
    return stored


@app.delete("/tasks/{task_id}")
def delete_task(task_id: uuid.UUID, idempotency_key: Annotated[str | None, Header()] = None):
    with lock:
        refuse_if_asked(task_id)
        if tasks.pop(task_id, None) is None:
            raise HTTPException(status_code=404, detail="Task not found")
        applied("delete", "tasks", task_id, idempotency_key, None, None)
    return {"ok": True}


def refuse_orphan(finding: FindingCreate):
    """A finding whose task does not exist is refused, as a foreign key refuses it; called with
    the lock held."""
    if finding.task_id not in tasks:
        stats["orphans_refused"] += 1
        raise HTTPException(status_code=422, detail=[{
            "type": "value_error", "loc": ["body", "task_id"], "input": str(finding.task_id),
            "msg": "Value error, no such task"}])


@app.post("/findings/", status_code=201)
def create_finding(finding: FindingCreate, idempotency_key: Annotated[str | None, Header()] = None) -> Finding:
    with lock:
        finding_id = finding.id or uuid.uuid4()
        if finding_id in findings:
            raise HTTPException(status_code=409, detail="Finding already exists")
        refuse_orphan(finding)
        stored = Finding(**finding.model_dump(exclude={"id"}), id=finding_id)
        findings[finding_id] = stored
        applied("create", "findings", finding_id, idempotency_key, finding, stored)
    return stored


@app.get("/findings/")
def read_findings(offset: int = 0, limit: Annotated[int, Query(le=100)] = 100) -> list[Finding]:
    with lock:
        return list(findings.values())[offset:offset + limit]


@app.get("/findings/changes")
def read_finding_changes(since: str | None = None,
                         limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> FindingChanges:
    with lock:
        saved, deleted, next_cursor, more = feeds["findings"].page(since, limit, findings)
        return FindingChanges(saved=saved, deleted=deleted, next=next_cursor, more=more)


@app.get("/findings/{finding_id}")
def read_finding(finding_id: uuid.UUID) -> Finding:
    finding = findings.get(finding_id)
    if finding is None:
        raise HTTPException(status_code=404, detail="Finding not found")
    return finding


@app.put("/findings/{finding_id}")
def update_finding(finding_id: uuid.UUID, finding: FindingCreate,
                   idempotency_key: Annotated[str | None, Header()] = None,
                   if_none_match: Annotated[str | None, Header()] = None) -> Finding:
    with lock:
        if if_none_match == "*" and finding_id in findings:
            raise HTTPException(status_code=412, detail="Finding already exists")
        if finding_id not in findings:
            raise HTTPException(status_code=404, detail="Finding not found")
        refuse_orphan(finding)
        stored = Finding(**finding.model_dump(exclude={"id"}), id=finding_id)
        findings[finding_id] = stored
        applied("replace", "findings", finding_id, idempotency_key, finding, stored)
    return stored


@app.delete("/findings/{finding_id}")
def delete_finding(finding_id: uuid.UUID, idempotency_key: Annotated[str | None, Header()] = None):
    with lock:
        if findings.pop(finding_id, None) is None:
            raise HTTPException(status_code=404, detail="Finding not found")
        applied("delete", "findings", finding_id, idempotency_key, None, None)
    return {"ok": True}


# -- What stands between the client and the app: late arrival, idempotency keys, lost answers.


class AnswerLost(Exception):
    """Raised after a lost answer's headers went out, so uvicorn drops the connection."""


class Hostile:
    """An ASGI layer around the app for the switches that act on a whole request: a write
    arrives late, its Idempotency-Key is checked (and its answer kept), and its answer is
    lost. Reads and the /__ endpoints pass straight through."""

    def __init__(self, inner):
        self.inner = inner
        self.random = random.Random(0)
        self.key_locks: dict[str, asyncio.Lock] = {}
        self.answers: dict[str, tuple[str, str, int, list, bytes]] = {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] == "GET" or scope["path"].startswith("/__"):
            return await self.inner(scope, receive, send)
        body = b""
        while True:  # read it all now: a late request's client may have gone when it lands
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        with lock:
            late = switches.answer_late > 0
            if late:
                switches.answer_late -= 1
                stats["late"] += 1
            delay = switches.late_delay
        if late:
            await asyncio.sleep(delay)
        status, headers, answer = await self.answered(scope, body)
        with lock:
            if late:
                stats["late_landed"] += 1
            lose = 200 <= status < 300 and (
                switches.lose_next > 0 or self.random.random() < switches.lose_answers)
            if lose:
                switches.lose_next = max(0, switches.lose_next - 1)
                stats["lost"] += 1
            mode = switches.lost_answer
        if lose and mode == "504":
            status, headers, answer = 504, [(b"content-type", b"application/json")], b'{"detail":"Gateway Timeout"}'
            headers.append((b"content-length", str(len(answer)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if lose and mode == "drop":
            raise AnswerLost()
        await send({"type": "http.response.body", "body": answer})

    async def answered(self, scope, body):
        """The app's answer to the request, or the one kept for its Idempotency-Key."""
        key = dict(scope["headers"]).get(b"idempotency-key")
        if key is None or not switches.honour_idempotency_keys:
            return await self.run(scope, body)
        key = key.decode()
        async with self.key_locks.setdefault(key, asyncio.Lock()):  # one request of a key at a time
            if key in self.answers:
                method, path, status, headers, answer = self.answers[key]
                with lock:
                    stats["replayed"] += 1
                if (method, path) != (scope["method"], scope["path"]):
                    answer = b'{"detail":"The Idempotency-Key was used on another request"}'
                    return 422, [(b"content-type", b"application/json"),
                                 (b"content-length", str(len(answer)).encode())], answer
                return status, headers, answer
            status, headers, answer = await self.run(scope, body)
            if status < 300 if switches.keep_answers == "applied" else status < 500:
                self.answers[key] = (scope["method"], scope["path"], status, headers, answer)
            return status, headers, answer

    async def run(self, scope, body):
        """Runs the app on `body`, collecting its answer."""
        start = {}
        chunks = []
        delivered = False

        async def receive():
            nonlocal delivered
            if delivered:
                return {"type": "http.disconnect"}
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def collect(message):
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                chunks.append(message.get("body", b""))

        await self.inner(scope, receive, collect)
        return start["status"], list(start.get("headers", [])), b"".join(chunks)


class QuietLostAnswers(logging.Filter):
    """Keeps a lost answer (on purpose) out of the error log; every other error stays."""

    def filter(self, record):
        return not (record.exc_info and isinstance(record.exc_info[1], AnswerLost))


hostile = Hostile(app)


class Score(BaseModel):
    """A game's score, whose ID the client chooses: the resource the query tests read."""
    id: int
    player: str
    points: int
    rating: float
    level: int | None = None
    finished_at: datetime | None = None


scores: dict[int, Score] = {}
LOOKUPS = ("lt", "lte", "gt", "gte", "in", "isnull", "startswith")


def lookup_value(field: str, text: str):
    """A parameter's text as the field's type."""
    kind = Score.model_fields[field].annotation
    if kind in (int, int | None):
        return int(text)
    if kind is float:
        return float(text)
    if kind == datetime | None:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    return text


def lookup_holds(value, lookup: str, operand) -> bool:
    """Whether a score's value meets one lookup, as SQL answers it: None meets no comparison."""
    if lookup == "isnull":
        return (value is None) == operand
    if value is None:
        return False
    if lookup == "in":
        return value in operand
    if lookup == "startswith":
        return value.startswith(operand)
    return {"": value == operand, "lt": value < operand, "lte": value <= operand,
            "gt": value > operand, "gte": value >= operand}[lookup]


def score_conditions(request: Request, reserved: tuple[str, ...]):
    """The lookups among the request's parameters (Docs/Queries.md's convention: `field=v`,
    `field__lt=v`, `__lte`, `__gt`, `__gte`, `__in=a,b`, `__isnull=true`, `__startswith=p`)
    as (field, lookup, operand); an unknown field or lookup, or a bad value, answers 400."""
    conditions = []
    for name, text in request.query_params.multi_items():
        if name in reserved:
            continue
        field, _, lookup = name.partition("__")
        if field not in Score.model_fields or (lookup and lookup not in LOOKUPS):
            raise HTTPException(status_code=400, detail="Unknown filter: " + name)
        try:
            if lookup == "isnull":
                operand = {"true": True, "false": False}[text]
            elif lookup == "in":
                operand = [lookup_value(field, part) for part in text.split(",")]
            else:
                operand = lookup_value(field, text)
        except (KeyError, ValueError):
            raise HTTPException(status_code=400, detail="Bad value for %s: %s" % (name, text))
        conditions.append((field, lookup, operand))
    return conditions


def score_meets(score: Score, conditions) -> bool:
    return all(lookup_holds(getattr(score, f), l, o) for f, l, o in conditions)


@app.get("/scores/")
def read_scores(request: Request, offset: int = 0, limit: Annotated[int, Query(ge=0, le=100)] = 100,
                order_by: str | None = None) -> list[Score]:
    """The scores that meet every lookup (score_conditions), in the order of `order_by`
    (fields comma-separated, `-` for descending; None first when ascending), ties in
    insertion order."""
    conditions = score_conditions(request, ("offset", "limit", "order_by"))
    with lock:
        rows = [s for s in scores.values() if score_meets(s, conditions)]
    for term in reversed((order_by or "").split(",") if order_by else []):
        field = term.lstrip("-")
        if field not in Score.model_fields:
            raise HTTPException(status_code=400, detail="Unknown order: " + term)
        present = [s for s in rows if getattr(s, field) is not None]
        absent = [s for s in rows if getattr(s, field) is None]
        descending = term.startswith("-")
        present.sort(key=lambda s: getattr(s, field), reverse=descending)
        rows = present + absent if descending else absent + present
    return rows[offset:offset + limit]


class ScoreChanges(BaseModel):
    saved: list[Score]
    deleted: list[int]
    next: str
    more: bool


@app.get("/scores/changes")
def read_score_changes(request: Request, since: str | None = None,
                       limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> ScoreChanges:
    """The scores' change feed (Docs/HTTP.md's convention). With lookups, the page of that
    subset: a changed score that meets them among saved, any other changed score's ID among
    deleted, so a reader that holds only the subset removes what left it."""
    conditions = score_conditions(request, ("since", "limit"))
    with lock:
        saved, deleted, cursor, more = feeds["scores"].page(since, limit, scores)
        left = [s.id for s in saved if not score_meets(s, conditions)]
        kept = [s for s in saved if score_meets(s, conditions)]
        stats["score_pages"] += 1
        stats["score_bodies_sent"] += len(kept)
    return ScoreChanges(saved=kept, deleted=deleted + left, next=cursor, more=more)


@app.get("/scores/{score_id}")
def read_score(score_id: int) -> Score:
    with lock:
        if score_id not in scores:
            raise HTTPException(status_code=404, detail="Score not found")
        return scores[score_id]


@app.post("/scores/", status_code=201)
def create_score(score: Score) -> Score:
    with lock:
        if score.id in scores:
            raise HTTPException(status_code=409, detail="Score exists")
        scores[score.id] = score
        feeds["scores"].changed(score.id)
        return score


@app.put("/scores/{score_id}")
def replace_score(score_id: int, score: Score) -> Score:
    with lock:
        if score_id not in scores:
            raise HTTPException(status_code=404, detail="Score not found")
        scores[score_id] = score.model_copy(update={"id": score_id})
        feeds["scores"].changed(score_id)
        stats["score_writes"] += 1
        return scores[score_id]


@app.delete("/scores/{score_id}")
def delete_score(score_id: int):
    with lock:
        if scores.pop(score_id, None) is None:
            raise HTTPException(status_code=404, detail="Score not found")
        feeds["scores"].changed(score_id)
    return {"ok": True}


def main():
    # IPPROTO_TCP named, so asyncio sets TCP_NODELAY on each connection: without it an answer
    # on a kept-alive connection waits for the client's delayed ACK, tens of milliseconds.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(hostile, log_level="warning", access_log=False))
    logging.getLogger("uvicorn.error").addFilter(QuietLostAnswers())

    def watch_stdin():
        sys.stdin.read()  # returns at end of input: the test process has gone
        server.should_exit = True

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(sock.getsockname()[1], flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
