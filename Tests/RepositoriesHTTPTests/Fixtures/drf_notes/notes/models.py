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
