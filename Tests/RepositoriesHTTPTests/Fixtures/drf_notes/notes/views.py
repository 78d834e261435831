from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import viewsets
from rest_framework.filters import OrderingFilter
from rest_framework.decorators import api_view
from rest_framework.response import Response

from notes.feed import ChangeFeedMixin, forget_deletions
from notes.models import Note, Score, Task
from notes.pagination import ScorePagination
from notes.serializers import NoteSerializer, ScoreSerializer, TaskSerializer


class NoteViewSet(ChangeFeedMixin, viewsets.ModelViewSet):
    queryset = Note.objects.all()
    serializer_class = NoteSerializer
    feed_resource = "notes"


class TaskViewSet(ChangeFeedMixin, viewsets.ModelViewSet):
    queryset = Task.objects.all()
    serializer_class = TaskSerializer
    feed_resource = "tasks"


class ScoreViewSet(viewsets.ModelViewSet):
    """Scores, filtered as django-filter's documentation shows (`points__lt=500`), ordered by
    `?ordering=-points,id`, paged by `?limit=&offset=`."""

    queryset = Score.objects.all()
    serializer_class = ScoreSerializer
    pagination_class = ScorePagination
    filter_backends = [DjangoFilterBackend, OrderingFilter]
    filterset_fields = {
        "player": ["exact", "in", "startswith", "lt", "lte", "gt", "gte"],
        "points": ["exact", "in", "lt", "lte", "gt", "gte"],
        "rating": ["exact", "in", "lt", "lte", "gt", "gte"],
        "level": ["exact", "in", "lt", "lte", "gt", "gte", "isnull"],
        "finished_at": ["exact", "in", "lt", "lte", "gt", "gte", "isnull"],
    }
    ordering_fields = ["id", "player", "points", "rating", "level", "finished_at"]


@api_view(["POST"])
def forget(request, resource):
    """A test's control: forgets the resource's tombstones."""
    forget_deletions(resource, {"notes": Note, "tasks": Task}[resource])
    return Response(status=204)
