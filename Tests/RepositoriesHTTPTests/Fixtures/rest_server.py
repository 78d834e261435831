#!/usr/bin/env python3
"""A small REST server for the HTTPRepository tests. Python standard library only.

Started by the tests: it binds 127.0.0.1 on an ephemeral port, prints the port on one line
of stdout, and serves until it is terminated or its stdin closes (so it never outlives the
test process that started it).

Resources
    GET    /<c>               the collection, a JSON array in insertion order
             ?per_page=N&page=K   one page, with Link: <...>; rel="next" while more remain
             &envelope=KEY        the page as {"KEY": [...], "next": "<relative url>" | null}
             ?count               {"count": N}
    POST   /<c>               a JSON object: create or replace it under its "id", and
                              answer it;
                              a JSON array: upsert every element, atomically
    DELETE /<c>               empty the collection
    GET    /<c>/<id>          the item (?envelope=KEY wraps it), 404 when absent
    PUT    /<c>/<id>          insert or replace (a replaced item keeps its place);
                              If-Match is honoured (412 when it does not match), and so is
                              If-None-Match: * (412 when the item exists: a create only)
    DELETE /<c>/<id>          204, or 404 when absent; If-Match is honoured (412 when it
                              does not match a present item)
    GET    /<c>/changes?since=CURSOR&limit=N
                              the change feed (Docs/HTTP.md's convention): the items changed
                              after CURSOR (every item, without it), at most N, as
                              {"saved": [...], "deleted": [ids], "next": "...", "more": bool};
                              410 for a cursor whose deletions were forgotten or that another
                              server (or an earlier run) issued
Every GET answers an ETag (a hash of the body) and 304 to a matching If-None-Match.
IDs are keys in Unicode normalization form C, so two spellings of one ID name one item.

Idempotency: a write (POST, PUT, PATCH, DELETE) with an Idempotency-Key that was seen
before on the same method and path is not applied again: the first answer is replayed (and
logged with "replayed": true); the key on another method or path answers 422.

Collections named "slashed-..." behave like Django: a path without a trailing slash answers
301 to the same path with one; with it, they are served as above.

PostgREST (/rest/v1/<table>), following its documented conventions
    every request needs an apikey header and Authorization: Bearer <token>, else 401
    filters (horizontal filtering): <col>=<op>.<v> with op eq, neq, gt, gte, lt, lte,
        in.(<v>,...), is.null|true|false, like.<pattern> (* or % any run, _ one character,
        case-sensitive), each negated by not. (not.is.null); and the logical
        trees or=(<filter>,...) and and=(...), nested as and(...)/or(...) and negated as
        not.and(...), whose filters are <col>.<op>.<v> with values in double quotes when they
        hold , . : ( ) (a backslash escapes " and \ inside). Numbers compare as numbers,
        booleans as booleans, ISO 8601 timestamps as instants, other text by code point (a
        database compares text by its collation; the fixture's order and its filters agree,
        which is what paging needs)
    GET    /rest/v1/<t>?<filters>&order=<col>[.asc|.desc][.nullsfirst|.nullslast],...&limit=N&offset=K&select=<cols>
                       (NULLs last ascending and first descending unless the order says)
                       rows as a JSON array, Content-Range: <first>-<last>/<total or *>
                       (*/<total> when empty; the total with Prefer: count=exact);
                       Accept: application/vnd.pgrst.object+json: the one row as an object,
                       406 {"code": "PGRST116", ...} unless exactly one row matches
    POST   /rest/v1/<t>    an object or an array of rows: inserted (an absent "id" is assigned
                       from a sequence); a duplicate key answers 409 {"code": "23505"} and
                       inserts nothing; Prefer: resolution=merge-duplicates makes it an
                       upsert, and one key twice in one upsert answers 500 {"code": "21000"};
                       201, with the rows as an array under Prefer: return=representation
    PATCH  /rest/v1/<t>?<filters>   an object: its columns set on every matching row; 204, or
                       200 with the rows changed under Prefer: return=representation
    DELETE /rest/v1/<t>?<filters>   204, the matching rows deleted
    Change-feed tables (Docs/HTTP.md, "Serving it from PostgREST"): in a table named
    "feed-..." and in any row written with an "updated_at" key, every insert and update
    stamps "updated_at" with the server's clock, as the table's trigger does with
    clock_timestamp(): PostgreSQL's JSON text (2024-05-01T09:30:00.123456+00:00, trailing
    zeros of the fraction dropped), each stamp a microsecond or more after the one before, so
    stamps follow the order writes commit in. In a "feed-..." table a row also has "deleted"
    (false unless written), and an insert or upsert of a key whose row is deleted removes that
    row first, so the new row is inserted (last in the table's order) instead of answering 409
    (the table's trigger does so).
    Every answer carries a Date header from the server's clock, which /__advance-clock moves.

Control (never scripted, never logged)
    POST /__script   {"collection": C, "responses": [R, ...]}: the next requests to
                     collection C answer R, one each, in order. R is one of
                     {"status": 503, "headers": {...}, "body": "text"}   (the header value
                         "{http-date+N}" becomes the HTTP-date N seconds from now)
                     {"action": "garbage"}          200 with a body that is not JSON
                     {"action": "slow", "delay": S} headers now, the body after S seconds
                     {"action": "drop"}             headers and half a body, then the
                                                    connection is closed
                     {"action": "pass"}             the ordinary answer
    POST /__forget-deletions?collection=C   forgets C's tombstones: older cursors answer 410
    POST /__advance-clock?seconds=S     moves the server's clock (Date headers, PostgREST
                                        stamps) S seconds forward, for the whole server
    GET  /__log?collection=C           the requests C received: method, path, headers,
                                       a write's body, and the status answered
    GET  /__wait?collection=C&requests=N&aborted=M&timeout=S
                                       waits until C has received N requests and M
                                       clients hung up on a slow answer; 408 on timeout
"""

import datetime
import email.utils
import re
import hashlib
import json
import os
import select
import socket
import sys
import threading
import time
import unicodedata
import urllib.parse
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Store:
    def __init__(self):
        self.condition = threading.Condition()
        self.collections = {}  # name -> OrderedDict(key -> bytes)
        self.scripts = {}  # name -> [response, ...]
        self.logs = {}  # name -> [request, ...]
        self.aborted = {}  # name -> count of clients that hung up on a slow answer
        self.answers = {}  # idempotency key -> (method, path, status, headers, body)
        self.tables = {}  # PostgREST table -> OrderedDict(key -> row)
        self.feeds = {}  # name -> Feed
        self.sequence = 0
        self.clock_offset = 0.0  # seconds /__advance-clock moved the clock by
        self.last_stamp = 0  # microseconds since 1970 of the last PostgREST stamp

    def now(self):
        """The server's clock, in seconds since 1970."""
        return time.time() + self.clock_offset

    def stamp(self):
        """A PostgREST write's updated_at: the clock, past the last stamp. Condition held."""
        self.last_stamp = max(int(self.now() * 1_000_000), self.last_stamp + 1)
        seconds, micros = divmod(self.last_stamp, 1_000_000)
        moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
        text = moment.strftime("%Y-%m-%dT%H:%M:%S")
        if micros:
            text += ("." + "%06d" % micros).rstrip("0")
        return text + "+00:00"

    def collection(self, name):
        return self.collections.setdefault(name, OrderedDict())

    def feed(self, name):
        return self.feeds.setdefault(name, Feed())

    def put(self, name, key, body):
        """Stores an item and numbers its change; called with the condition held."""
        self.collection(name)[key] = body  # an existing key keeps its place
        self.feed(name).changed(key, json.loads(body).get("id", key))

    def remove(self, name, key):
        """Removes an item, leaving a tombstone; whether it existed. Condition held."""
        stored = self.collection(name).pop(key, None)
        if stored is not None:
            self.feed(name).changed(key, json.loads(stored).get("id", key))
        return stored is not None

    def clear(self, name):
        for key in list(self.collection(name)):
            self.remove(name, key)


class Feed:
    """One collection's change feed: the number of every key's last change, in order, and
    the number below which deletions are forgotten. Cursors are "<epoch>:<number>:<forgets>";
    the epoch is this server's, so a cursor from another server is refused; a cursor handed
    out before the last forgetting, below its number, is refused too (one handed out since is
    good: its reader read no item whose deletion was forgotten)."""

    def __init__(self):
        self.epoch = os.urandom(4).hex()
        self.number = 0
        self.last = OrderedDict()  # key -> number of its last change, oldest first
        self.ids = {}  # key -> the "id" as JSON had it, for its tombstone
        self.forgotten_below = 0
        self.forgets = 0

    def changed(self, key, id_value):
        self.number += 1
        self.last[key] = self.number
        self.last.move_to_end(key)
        self.ids[key] = id_value

    def forget_deletions(self, collection):
        """Drops every tombstone: a cursor from before now can no longer be answered."""
        for key in [k for k in self.last if k not in collection]:
            del self.last[key]
            del self.ids[key]
        self.forgotten_below = self.number
        self.forgets += 1

    def cursor(self, number):
        return "%s:%d:%d" % (self.epoch, number, self.forgets)

    def after(self, cursor):
        """The number a cursor stands for, or None when it cannot be answered from."""
        if cursor is None:
            return 0
        parts = cursor.split(":")
        canonical = all(p.isdigit() and p == str(int(p)) for p in parts[1:])
        if len(parts) != 3 or parts[0] != self.epoch or not canonical:
            return None
        number, forgets = int(parts[1]), int(parts[2])
        if number > self.number or (forgets < self.forgets and number < self.forgotten_below):
            return None
        return number


STORE = Store()


def etag_of(body):
    return '"' + hashlib.sha1(body).hexdigest()[:20] + '"'


def item_key(value):
    """The key an entity's "id" is stored under: its path segment, in NFC."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    return json.dumps(value)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "RepositoriesFixture/1"
    # Headers and body go out in separate writes; with Nagle's algorithm the body would wait
    # for the client's delayed ACK (40 ms a request on Linux).
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # quiet: the tests read /__log instead
        pass

    def date_time_string(self, timestamp=None):
        """The Date header, from the server's clock (which /__advance-clock moves)."""
        return email.utils.formatdate(STORE.now() if timestamp is None else timestamp, usegmt=True)

    # -- plumbing ---------------------------------------------------------------------

    def parts(self):
        parsed = urllib.parse.urlsplit(self.path)
        segments = [urllib.parse.unquote(s) for s in parsed.path.split("/")[1:]]
        query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
        return parsed, segments, query

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def answer(self, status, body=b"", headers=None, content_type="application/json"):
        if getattr(self, "entry", None) is not None:
            self.entry["status"] = str(status)
        key = getattr(self, "idempotency_key", None)
        if key is not None:
            with STORE.condition:
                STORE.answers[key] = (self.command, self.path, status, dict(headers or {}), body, content_type)
        if getattr(self, "lose_answer", False):
            # The write was applied; the answer never reaches the client.
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body or status not in (204, 304):
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def answer_json(self, status, value, headers=None):
        self.answer(status, json.dumps(value).encode(), headers)

    def answer_get(self, body, headers=None):
        tag = etag_of(body)
        headers = dict(headers or {})
        headers["ETag"] = tag
        wanted = [t.strip() for t in (self.headers.get("If-None-Match") or "").split(",")]
        if tag in wanted:
            self.answer(304, b"", headers)
        else:
            self.answer(200, body, headers)

    # -- dispatch ---------------------------------------------------------------------

    def do_GET(self):
        self.dispatch("GET")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_POST(self):
        self.dispatch("POST")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def dispatch(self, method):
        self.entry = None
        self.idempotency_key = None
        self.lose_answer = False
        try:
            parsed, segments, query = self.parts()
            body = self.read_body()
            if segments and segments[0].startswith("__"):
                return self.control(method, segments[0], query, body)
            postgrest = segments[:2] == ["rest", "v1"] and len(segments) == 3
            name = segments[2] if postgrest else (segments[0] if segments else "")
            self.entry = {"method": method, "path": self.path, "headers": dict(self.headers.items())}
            if method != "GET":
                self.entry["body"] = body.decode("utf-8", "replace")
            with STORE.condition:
                STORE.logs.setdefault(name, []).append(self.entry)
                STORE.condition.notify_all()
                script = STORE.scripts.get(name)
                scripted = script.pop(0) if script else None
            if scripted is not None and scripted.get("action") == "lose-answer":
                self.lose_answer = True
            elif scripted is not None and scripted.get("action") != "pass":
                return self.scripted(name, scripted)
            if method != "GET" and self.replayed(method):
                return
            if postgrest:
                return self.on_table(method, name, query, body)
            if name.startswith("slashed-"):
                if not parsed.path.endswith("/"):
                    location = parsed.path + "/" + ("?" + parsed.query if parsed.query else "")
                    return self.answer(301, b"", {"Location": location}, "text/html")
                segments = [s for s in segments if s != ""]
            if len(segments) == 1:
                return self.on_collection(method, name, query, body, parsed)
            if len(segments) == 2:
                return self.on_item(method, name, unicodedata.normalize("NFC", segments[1]), query, body)
            self.answer_json(404, {"error": "no such resource"})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def replayed(self, method):
        """Answers a write whose Idempotency-Key was seen before, as the first time."""
        key = self.headers.get("Idempotency-Key")
        if key is None:
            return False
        with STORE.condition:
            seen = STORE.answers.get(key)
        if seen is None:
            self.idempotency_key = key
            return False
        seen_method, seen_path, status, headers, body, content_type = seen
        self.entry["replayed"] = True
        if (seen_method, seen_path) != (method, self.path):
            self.answer_json(422, {"error": "the Idempotency-Key was used on another request"})
            return True
        self.answer(status, body, headers, content_type)
        return True

    # -- resources --------------------------------------------------------------------

    def on_collection(self, method, name, query, body, parsed):
        if method == "GET" and "count" in query:
            with STORE.condition:
                count = len(STORE.collection(name))
            return self.answer_json(200, {"count": count})
        if method == "GET":
            with STORE.condition:
                values = list(STORE.collection(name).values())
            envelope = (query.get("envelope") or [None])[0]
            next_link = None
            if "per_page" in query:
                per_page = max(1, int(query["per_page"][0]))
                page = max(1, int((query.get("page") or ["1"])[0]))
                start = (page - 1) * per_page
                if start + per_page < len(values):
                    following = dict((k, v[0]) for k, v in query.items())
                    following["page"] = str(page + 1)
                    next_link = parsed.path + "?" + urllib.parse.urlencode(following)
                values = values[start:start + per_page]
            array = b"[" + b",".join(values) + b"]"
            if envelope:
                body = (
                    b'{"' + envelope.encode() + b'":' + array
                    + b',"next":' + json.dumps(next_link).encode() + b"}"
                )
                return self.answer_get(body)
            headers = {"Link": "<%s>; rel=\"next\"" % next_link} if next_link else {}
            return self.answer_get(array, headers)
        if method == "POST":
            try:
                value = json.loads(body)
            except ValueError:
                return self.answer_json(400, {"error": "the body is not JSON"})
            items = value if isinstance(value, list) else [value]
            if not all(isinstance(item, dict) and "id" in item for item in items):
                return self.answer_json(422, {"error": "every entity needs an id"})
            with STORE.condition:
                for item in items:
                    STORE.put(name, item_key(item["id"]), json.dumps(item).encode())
            if isinstance(value, dict):
                return self.answer(201, json.dumps(value).encode())
            return self.answer(204)
        if method == "DELETE":
            with STORE.condition:
                STORE.clear(name)
            return self.answer(204)
        self.answer_json(405, {"error": "method not allowed"})

    def on_changes(self, name, query):
        """The change feed: the items changed after ?since (every item without it), at most
        ?limit, as {"saved", "deleted", "next", "more"}; 410 for a cursor it cannot answer."""
        try:
            limit = int((query.get("limit") or ["100"])[0])
        except ValueError:
            limit = 0
        if limit < 1:
            return self.answer_json(400, {"error": "limit must be a positive integer"})
        since = (query.get("since") or [None])[0]
        with STORE.condition:
            collection = STORE.collection(name)
            feed = STORE.feed(name)
            after = feed.after(since)
            if after is None:
                return self.answer_json(410, {"error": "the cursor is too old or not this server's",
                                              "since": since})
            saved, deleted, number, more = [], [], after, False
            for key, changed in feed.last.items():
                if changed <= after or (since is None and key not in collection):
                    continue  # a reader from scratch has no use for tombstones
                if len(saved) + len(deleted) == limit:
                    more = True
                    break
                if key in collection:
                    saved.append(collection[key])
                else:
                    deleted.append(feed.ids[key])
                number = changed
            if not more:
                number = feed.number
            page = {"deleted": deleted, "next": feed.cursor(number), "more": more}
        body = json.dumps(page).encode()
        body = body[:-1] + b', "saved": [' + b",".join(saved) + b"]}"
        return self.answer_get(body)

    def on_item(self, method, name, key, query, body):
        if method == "GET" and key == "changes":
            return self.on_changes(name, query)
        if method == "GET":
            with STORE.condition:
                stored = STORE.collection(name).get(key)
            if stored is None:
                return self.answer_json(404, {"error": "not found", "id": key})
            envelope = (query.get("envelope") or [None])[0]
            if envelope:
                stored = b'{"' + envelope.encode() + b'":' + stored + b"}"
            return self.answer_get(stored)
        if method == "PUT":
            try:
                json.loads(body)
            except ValueError:
                return self.answer_json(400, {"error": "the body is not JSON"})
            with STORE.condition:
                collection = STORE.collection(name)
                current = collection.get(key)
                condition = self.headers.get("If-Match")
                if condition is not None and condition.strip() != "*":
                    if current is None or etag_of(current) not in [
                        t.strip() for t in condition.split(",")
                    ]:
                        return self.answer_json(412, {"error": "precondition failed"})
                absent_only = (self.headers.get("If-None-Match") or "").strip() == "*"
                if absent_only and current is not None:
                    return self.answer_json(412, {"error": "precondition failed: the item exists", "id": key})
                STORE.put(name, key, body)
            return self.answer(201 if current is None else 200, body, {"ETag": etag_of(body)})
        if method == "DELETE":
            with STORE.condition:
                collection = STORE.collection(name)
                current = collection.get(key)
                condition = self.headers.get("If-Match")
                if current is not None and condition is not None and condition.strip() != "*":
                    if etag_of(current) not in [t.strip() for t in condition.split(",")]:
                        return self.answer_json(412, {"error": "precondition failed"})
                existed = STORE.remove(name, key)
            if existed:
                return self.answer(204)
            return self.answer_json(404, {"error": "not found", "id": key})
        self.answer_json(405, {"error": "method not allowed"})

    # -- PostgREST ---------------------------------------------------------------------

    def postgrest_error(self, status, code, message):
        self.answer_json(status, {"code": code, "details": None, "hint": None, "message": message})

    def on_table(self, method, name, query, body):
        if not self.headers.get("apikey"):
            return self.answer_json(401, {"message": "No API key found in request"})
        if not (self.headers.get("Authorization") or "").startswith("Bearer "):
            return self.answer_json(401, {"message": "No bearer token found in request"})
        prefer = ",".join(self.headers.get_all("Prefer") or [])
        preferences = set(p.strip() for p in prefer.split(",") if p.strip())
        with STORE.condition:
            table = STORE.tables.setdefault(name, OrderedDict())
            if method == "GET":
                return self.table_read(table, query, preferences)
            if method == "POST":
                return self.table_write(name, table, body, preferences)
            if method == "PATCH":
                return self.table_update(name, table, query, body, preferences)
            if method == "DELETE":
                for key in [k for k, row in table.items() if self.matches(row, query)]:
                    del table[key]
                return self.answer(204)
        self.postgrest_error(405, "PGRST117", "Unsupported HTTP method: " + method)

    def matches(self, row, query):
        for column, values in query.items():
            if column in ("select", "order", "limit", "offset", "on_conflict", "columns"):
                continue
            for value in values:
                if column in ("or", "and"):
                    held = [holds(row, c) for c in parse_logic(value)]
                    if not (any(held) if column == "or" else all(held)):
                        return False
                elif not filter_holds(row.get(column), value):
                    return False
        return True

    def table_read(self, table, query, preferences):
        rows = [row for row in table.values() if self.matches(row, query)]
        order = (query.get("order") or [None])[0]
        if order:
            for term in reversed(order.split(",")):  # stable sorts, the last key first
                column, *modifiers = term.split(".")
                descending = "desc" in modifiers
                # PostgreSQL's default: NULLs sort as if larger than every value.
                nulls_first = "nullsfirst" in modifiers or (descending and "nullslast" not in modifiers)
                present = [row for row in rows if row.get(column) is not None]
                present.sort(key=lambda row: sort_value(row[column]), reverse=descending)
                absent = [row for row in rows if row.get(column) is None]
                rows = absent + present if nulls_first else present + absent
        total = len(rows)
        offset = int((query.get("offset") or ["0"])[0])
        limit = query.get("limit")
        rows = rows[offset:offset + int(limit[0])] if limit else rows[offset:]
        if "select" in query:
            columns = query["select"][0].split(",")
            if columns != ["*"]:
                rows = [dict((c, row.get(c)) for c in columns) for row in rows]
        counted = str(total) if "count=exact" in preferences else "*"
        content_range = (
            "%d-%d/%s" % (offset, offset + len(rows) - 1, counted) if rows else "*/%s" % counted
        )
        headers = {"Content-Range": content_range}
        if "application/vnd.pgrst.object+json" in (self.headers.get("Accept") or ""):
            if len(rows) != 1:
                return self.answer_json(406, {
                    "code": "PGRST116",
                    "details": "The result contains %d rows" % len(rows),
                    "hint": None,
                    "message": "JSON object requested, multiple (or no) rows returned",
                }, headers)
            return self.answer_json(200, rows[0], headers)
        self.answer_json(200, rows, headers)

    def table_write(self, name, table, body, preferences):
        try:
            value = json.loads(body)
        except ValueError:
            return self.postgrest_error(400, "PGRST102", "Empty or invalid json")
        rows = value if isinstance(value, list) else [value]
        if not all(isinstance(row, dict) for row in rows):
            return self.postgrest_error(400, "PGRST102", "All object keys must match")
        upsert = "resolution=merge-duplicates" in preferences
        staged = OrderedDict(table)
        written = []
        seen = set()
        for row in rows:
            row = dict(row)
            if row.get("id") is None:
                STORE.sequence += 1
                row["id"] = STORE.sequence
            key = item_key(row["id"])
            if upsert and key in seen:
                return self.postgrest_error(
                    500, "21000", "ON CONFLICT DO UPDATE command cannot affect row a second time")
            if feed_table(name) and key in staged and staged[key].get("deleted") is True:
                del staged[key]  # the revive trigger: the deleted row makes way for a new one
            if not upsert and key in staged:
                return self.answer_json(409, {
                    "code": "23505",
                    "details": "Key (id)=(%s) already exists." % key,
                    "hint": None,
                    "message": 'duplicate key value violates unique constraint "pkey"',
                })
            seen.add(key)
            stamp_row(name, row)
            staged[key] = row  # an existing key keeps its place
            written.append(row)
        table.clear()
        table.update(staged)
        if "return=representation" in preferences:
            return self.answer_json(201, written)
        self.answer(201)

    def table_update(self, name, table, query, body, preferences):
        try:
            changes = json.loads(body)
        except ValueError:
            return self.postgrest_error(400, "PGRST102", "Empty or invalid json")
        if not isinstance(changes, dict):
            return self.postgrest_error(400, "PGRST102", "A PATCH body must be one object")
        changed = []
        for key, row in table.items():
            if self.matches(row, query):
                row = dict(row, **changes)
                stamp_row(name, row)
                table[key] = row
                changed.append(row)
        if "return=representation" in preferences:
            return self.answer_json(200, changed)
        self.answer(204)

    # -- scripted answers -------------------------------------------------------------

    def scripted(self, name, response):
        action = response.get("action")
        self.entry["status"] = str(action or response.get("status"))
        if action == "garbage":
            return self.answer(200, b'{"id": 1, "title": <this is not JSON>')
        if action == "drop":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'[{"id": 1, "ti')
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if action == "slow":
            return self.slow(name, float(response.get("delay", 5)))
        headers = {}
        for header, value in (response.get("headers") or {}).items():
            if value.startswith("{http-date+"):
                seconds = float(value[len("{http-date+"):-1])
                value = email.utils.formatdate(time.time() + seconds, usegmt=True)
            headers[header] = value
        body = response.get("body", "").encode()
        self.answer(int(response.get("status", 200)), body, headers, "text/plain")

    def slow(self, name, delay):
        body = b"[]"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline:
            readable, _, _ = select.select([self.connection], [], [], 0.02)
            if readable:
                try:
                    hung_up = self.connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    hung_up = True
                if hung_up:
                    with STORE.condition:
                        STORE.aborted[name] = STORE.aborted.get(name, 0) + 1
                        STORE.condition.notify_all()
                    self.close_connection = True
                    return
        self.wfile.write(body)

    # -- control ----------------------------------------------------------------------

    def control(self, method, command, query, body):
        if command == "__script" and method == "POST":
            request = json.loads(body)
            with STORE.condition:
                STORE.scripts.setdefault(request["collection"], []).extend(request["responses"])
            return self.answer(204)
        name = (query.get("collection") or [""])[0]
        if command == "__forget-deletions" and method == "POST":
            with STORE.condition:
                STORE.feed(name).forget_deletions(STORE.collection(name))
            return self.answer(204)
        if command == "__advance-clock" and method == "POST":
            with STORE.condition:
                STORE.clock_offset += float((query.get("seconds") or ["0"])[0])
            return self.answer(204)
        if command == "__log" and method == "GET":
            with STORE.condition:
                log = list(STORE.logs.get(name, []))
            return self.answer_json(200, log)
        if command == "__wait" and method == "GET":
            requests = int((query.get("requests") or ["0"])[0])
            aborted = int((query.get("aborted") or ["0"])[0])
            timeout = float((query.get("timeout") or ["10"])[0])

            def reached():
                return (
                    len(STORE.logs.get(name, [])) >= requests
                    and STORE.aborted.get(name, 0) >= aborted
                )

            with STORE.condition:
                done = STORE.condition.wait_for(reached, timeout)
                state = {
                    "requests": len(STORE.logs.get(name, [])),
                    "aborted": STORE.aborted.get(name, 0),
                }
            return self.answer_json(200 if done else 408, state)
        self.answer_json(404, {"error": "no such control endpoint"})


def feed_table(name):
    """Whether a PostgREST table is a change-feed table (Docs/HTTP.md's): "feed-..."."""
    return name.startswith("feed-")


def stamp_row(name, row):
    """What a feed table's defaults and trigger do to a row written. Condition held."""
    if feed_table(name) and row.get("deleted") is None:
        row["deleted"] = False
    if feed_table(name) or "updated_at" in row:
        row["updated_at"] = STORE.stamp()


TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}")


def instant(text):
    """The moment an ISO 8601 timestamp names (UTC when it names no zone), or None."""
    if not isinstance(text, str) or not TIMESTAMP.match(text):
        return None
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


def sort_value(cell):
    """A cell's place in an order: numbers and booleans by value, timestamps by instant,
    other text by code point."""
    if isinstance(cell, (bool, int, float)):
        return (0, cell, "")
    moment = instant(cell)
    if moment is not None:
        return (1, moment.timestamp(), "")
    return (2, 0, unicodedata.normalize("NFC", cell) if isinstance(cell, str) else json.dumps(cell))


def compare(cell, operand):
    """-1, 0 or 1 as a cell is below, at or above an operand's text; None when they cannot
    be compared (PostgreSQL would refuse the filter)."""
    if isinstance(cell, bool):
        if operand not in ("true", "false"):
            return None
        right = operand == "true"
        return (cell > right) - (cell < right)
    if isinstance(cell, (int, float)):
        try:
            right = int(operand) if isinstance(cell, int) else float(operand)
        except ValueError:
            try:
                right = float(operand)
            except ValueError:
                return None
        return (cell > right) - (cell < right)
    if isinstance(cell, str):
        left, right = instant(cell), instant(operand)
        if left is None or right is None:
            left, right = unicodedata.normalize("NFC", cell), unicodedata.normalize("NFC", operand)
        return (left > right) - (left < right)
    text = json.dumps(cell)
    return (text > operand) - (text < operand)


def filter_holds(cell, expression):
    """Whether a cell meets <op>.<value> (not.<op>.<value> negates)."""
    negated = expression.startswith("not.")
    if negated:
        expression = expression[len("not."):]
    operator, _, operand = expression.partition(".")
    if operator == "is":
        held = {"null": cell is None, "true": cell is True, "false": cell is False}.get(operand, False)
    elif operator == "in":
        held = cell is not None and any(compare(cell, v) == 0 for v in parse_in_list(operand))
    elif operator == "like":
        held = isinstance(cell, str) and like(unicodedata.normalize("NFC", cell), operand)
    elif cell is None:
        held = False
    else:
        order = compare(cell, operand)
        held = order is not None and {
            "eq": order == 0, "neq": order != 0, "gt": order > 0, "gte": order >= 0,
            "lt": order < 0, "lte": order <= 0,
        }.get(operator, False)
    return held != negated


def like(text, pattern):
    """Whether text matches a LIKE pattern, case-sensitively, as PostgreSQL's LIKE does: `*`
    (PostgREST's spelling) and `%` match any run of characters, `_` one character."""
    expression = "".join(
        ".*" if c in "*%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(expression, text, re.DOTALL) is not None


def split_top(text):
    """Splits at the commas outside parentheses and double quotes."""
    parts, current, depth, quoted, escaped = [], "", 0, False, False
    for character in text:
        if escaped:
            escaped = False
        elif quoted and character == "\\":
            escaped = True
        elif character == '"':
            quoted = not quoted
        elif not quoted and character == "(":
            depth += 1
        elif not quoted and character == ")":
            depth -= 1
        elif not quoted and depth == 0 and character == ",":
            parts.append(current)
            current = ""
            continue
        current += character
    parts.append(current)
    return parts


def unquoted(value):
    """A logical tree's value without its double quotes and escapes."""
    if len(value) < 2 or not (value.startswith('"') and value.endswith('"')):
        return value
    inner, result, escaped = value[1:-1], "", False
    for character in inner:
        if escaped or character != "\\":
            result += character
            escaped = False
        else:
            escaped = True
    return result


LOGIC = re.compile(r"^(not\.)?(and|or)(\(.*\))$", re.DOTALL)


def parse_logic(text):
    """The conditions of a logical tree, "(<condition>,...)": each ("leaf", column,
    expression) or ("tree", "and"|"or", negated, [conditions])."""
    if not (text.startswith("(") and text.endswith(")")):
        return [("leaf", "", "invalid")]
    conditions = []
    for item in split_top(text[1:-1]):
        nested = LOGIC.match(item)
        if nested:
            conditions.append(("tree", nested.group(2), bool(nested.group(1)), parse_logic(nested.group(3))))
            continue
        column, _, expression = item.partition(".")
        negation = "not." if expression.startswith("not.") else ""
        operator, _, operand = expression[len(negation):].partition(".")
        if operator != "in":
            operand = unquoted(operand)
        conditions.append(("leaf", column, negation + operator + "." + operand))
    return conditions


def holds(row, condition):
    if condition[0] == "leaf":
        return filter_holds(row.get(condition[1]), condition[2])
    _, kind, negated, conditions = condition
    held = [holds(row, c) for c in conditions]
    return (any(held) if kind == "or" else all(held)) != negated


def parse_in_list(operand):
    """The values of in.(a,"b,c") without the parentheses and quotes."""
    inner = operand[1:-1] if operand.startswith("(") and operand.endswith(")") else operand
    values, current, quoted, escaped, was_quoted = [], "", False, False, False
    for character in inner:
        if escaped:
            current += character
            escaped = False
        elif character == "\\" and quoted:
            escaped = True
        elif character == '"':
            quoted = not quoted
            was_quoted = True
        elif character == "," and not quoted:
            values.append(current)
            current, was_quoted = "", False
        else:
            current += character
    if current or was_quoted or values:
        values.append(current)
    return values


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)

    def watch_stdin():
        sys.stdin.read()  # returns at end of input: the test process has gone
        server.shutdown()

    threading.Thread(target=watch_stdin, daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
