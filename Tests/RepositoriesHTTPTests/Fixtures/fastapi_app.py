"""A FastAPI app written the way FastAPI's tutorial writes one, for the HTTPRepository tests.

Two resources, kept in memory:
    /notes/    server-assigned integer IDs and a created_at timestamp (NoteCreate has no id)
    /tasks/    client-chosen UUIDs (TaskCreate takes an optional id; a known one answers 409)
Lists are plain arrays read with ?offset=&limit= (limit at most 100); PUT only replaces
(404 for an unknown ID); DELETE answers {"ok": true}, or 404.

Run by the tests: it binds 127.0.0.1 on a free port, prints the port on one line of stdout,
and serves until its stdin closes.
"""

import socket
import sys
import threading
import uuid
from datetime import datetime, timezone
from typing import Annotated

import uvicorn
from fastapi import FastAPI, HTTPException, Query
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


class TaskCreate(TaskBase):
    id: uuid.UUID | None = None


class Task(TaskBase):
    id: uuid.UUID


notes: dict[int, Note] = {}
tasks: dict[uuid.UUID, Task] = {}
next_note_id = 1


@app.post("/notes/", status_code=201)
def create_note(note: NoteCreate) -> Note:
    global next_note_id
    with lock:
        stored = Note(id=next_note_id, created_at=datetime.now(timezone.utc), **note.model_dump())
        notes[stored.id] = stored
        next_note_id += 1
    return stored


@app.get("/notes/")
def read_notes(offset: int = 0, limit: Annotated[int, Query(le=100)] = 100) -> list[Note]:
    with lock:
        return list(notes.values())[offset:offset + limit]


@app.get("/notes/{note_id}")
def read_note(note_id: int) -> Note:
    note = notes.get(note_id)
    if note is None:
        raise HTTPException(status_code=404, detail="Note not found")
    return note


@app.put("/notes/{note_id}")
def update_note(note_id: int, note: NoteCreate) -> Note:
    with lock:
        if note_id not in notes:
            raise HTTPException(status_code=404, detail="Note not found")
        stored = notes[note_id].model_copy(update=note.model_dump())
        notes[note_id] = stored
    return stored


@app.delete("/notes/{note_id}")
def delete_note(note_id: int):
    with lock:
        if notes.pop(note_id, None) is None:
            raise HTTPException(status_code=404, detail="Note not found")
    return {"ok": True}


@app.post("/tasks/", status_code=201)
def create_task(task: TaskCreate) -> Task:
    with lock:
        task_id = task.id or uuid.uuid4()
        if task_id in tasks:
            raise HTTPException(status_code=409, detail="Task already exists")
        stored = Task(**task.model_dump(exclude={"id"}), id=task_id)
        tasks[task_id] = stored
    return stored


@app.get("/tasks/")
def read_tasks(offset: int = 0, limit: Annotated[int, Query(le=100)] = 100) -> list[Task]:
    with lock:
        return list(tasks.values())[offset:offset + limit]


@app.get("/tasks/{task_id}")
def read_task(task_id: uuid.UUID) -> Task:
    task = tasks.get(task_id)
    if task is None:
        raise HTTPException(status_code=404, detail="Task not found")
    return task


@app.put("/tasks/{task_id}")
def update_task(task_id: uuid.UUID, task: TaskCreate) -> Task:
    with lock:
        if task_id not in tasks:
            raise HTTPException(status_code=404, detail="Task not found")
        stored = Task(**task.model_dump(exclude={"id"}), id=task_id)
        tasks[task_id] = stored  # a replaced task keeps its place
    return stored


@app.delete("/tasks/{task_id}")
def delete_task(task_id: uuid.UUID):
    with lock:
        if tasks.pop(task_id, None) is None:
            raise HTTPException(status_code=404, detail="Task not found")
    return {"ok": True}


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))

    def watch_stdin():
        sys.stdin.read()  # returns at end of input: the test process has gone
        server.should_exit = True

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(sock.getsockname()[1], flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
