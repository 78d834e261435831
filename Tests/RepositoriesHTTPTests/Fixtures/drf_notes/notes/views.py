from rest_framework import viewsets
from rest_framework.decorators import api_view
from rest_framework.response import Response

from notes.feed import ChangeFeedMixin, forget_deletions
from notes.models import Note, Task
from notes.serializers import NoteSerializer, TaskSerializer


class NoteViewSet(ChangeFeedMixin, viewsets.ModelViewSet):
    queryset = Note.objects.all()
    serializer_class = NoteSerializer
    feed_resource = "notes"


class TaskViewSet(ChangeFeedMixin, viewsets.ModelViewSet):
    queryset = Task.objects.all()
    serializer_class = TaskSerializer
    feed_resource = "tasks"


@api_view(["POST"])
def forget(request, resource):
    """A test's control: forgets the resource's tombstones."""
    forget_deletions(resource, {"notes": Note, "tasks": Task}[resource])
    return Response(status=204)
