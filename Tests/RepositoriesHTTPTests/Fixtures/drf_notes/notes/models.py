import uuid

from django.db import models


class Note(models.Model):
    """A note whose ID the server assigns."""

    title = models.CharField(max_length=200)
    done = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class Task(models.Model):
    """A task whose UUID the client may choose, listed in the order created."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    title = models.TextField()
    rank = models.IntegerField(default=0)
    done = models.BooleanField(default=False)
    due_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]


class Score(models.Model):
    """A game's score, whose ID the client chooses: the resource the query tests read, listed
    by django-filter's lookups, OrderingFilter and LimitOffsetPagination."""

    id = models.BigIntegerField(primary_key=True)
    player = models.TextField(blank=True)
    points = models.BigIntegerField()
    rating = models.FloatField()
    level = models.IntegerField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]


class Change(models.Model):
    """An entry of a resource's change feed: the last change of one item, numbered. Written in
    the write's own transaction, in place of the item's older entry; SQLite admits one writer
    at a time, so numbers are taken in commit order."""

    number = models.BigAutoField(primary_key=True)
    resource = models.CharField(max_length=40)
    item = models.CharField(max_length=64)

    class Meta:
        indexes = [models.Index(fields=["resource", "number"])]
        constraints = [models.UniqueConstraint(fields=["resource", "item"], name="one_entry_per_item")]


class FeedState(models.Model):
    """What a resource's feed answers from: the database's epoch (a cursor from another
    database is refused), the number of its last change, and where forgotten deletions end."""

    resource = models.CharField(max_length=40, primary_key=True)
    epoch = models.CharField(max_length=16)
    last = models.BigIntegerField(default=0)
    forgotten_below = models.BigIntegerField(default=0)
    forgets = models.IntegerField(default=0)
