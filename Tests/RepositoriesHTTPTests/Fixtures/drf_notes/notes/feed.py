"""The change feed of Docs/HTTP.md's convention, for a ModelViewSet: GET <resource>/changes/
?since=CURSOR&limit=N answers {"saved": [...], "deleted": [ids], "next": "...", "more": bool},
and 410 for a cursor it can no longer answer from. Every write records its change in the
write's transaction."""

import uuid

from django.db import transaction
from rest_framework.decorators import action
from rest_framework.response import Response

from notes.models import Change, FeedState


def feed_state(resource):
    state, _ = FeedState.objects.get_or_create(resource=resource, defaults={"epoch": uuid.uuid4().hex[:8]})
    return state


def record(resource, pk):
    """Numbers the change of one item; called inside the write's transaction."""
    state = feed_state(resource)
    Change.objects.filter(resource=resource, item=str(pk)).delete()
    state.last = Change.objects.create(resource=resource, item=str(pk)).number
    state.save(update_fields=["last"])


def forget_deletions(resource, model):
    """Drops the resource's tombstones: cursors handed out before now, below them, answer 410."""
    with transaction.atomic():
        state = feed_state(resource)
        existing = {str(pk) for pk in model.objects.values_list("pk", flat=True)}
        tombstones = [c.number for c in Change.objects.filter(resource=resource) if c.item not in existing]
        Change.objects.filter(number__in=tombstones).delete()
        state.forgotten_below = state.last
        state.forgets += 1
        state.save()


class ChangeFeedMixin:
    """Records every create, update and delete in the feed, and serves it at `changes/`."""

    feed_resource = None

    def perform_create(self, serializer):
        with transaction.atomic():
            instance = serializer.save()
            record(self.feed_resource, instance.pk)

    def perform_update(self, serializer):
        with transaction.atomic():
            instance = serializer.save()
            record(self.feed_resource, instance.pk)

    def perform_destroy(self, instance):
        with transaction.atomic():
            pk = instance.pk
            instance.delete()
            record(self.feed_resource, pk)

    @action(detail=False)
    def changes(self, request):
        try:
            limit = int(request.query_params.get("limit", "100"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 1000:
            return Response({"limit": ["Ensure this value is between 1 and 1000."]}, status=400)
        since = request.query_params.get("since")
        model = self.get_queryset().model
        pk_field = model._meta.pk
        with transaction.atomic():  # one snapshot of the items and their changes
            state = feed_state(self.feed_resource)
            after = 0
            if since is not None:
                parts = since.split(":")
                canonical = len(parts) == 3 and all(p.isdigit() and p == str(int(p)) for p in parts[1:])
                if not canonical or parts[0] != state.epoch or int(parts[1]) > state.last or (
                        int(parts[2]) < state.forgets and int(parts[1]) < state.forgotten_below):
                    return Response({"detail": "The cursor is too old, or not this server's."}, status=410)
                after = int(parts[1])
            entries = Change.objects.filter(resource=self.feed_resource, number__gt=after)
            if since is None:  # a reader from scratch has no use for tombstones
                entries = entries.filter(item__in=[str(pk) for pk in model.objects.values_list("pk", flat=True)])
            entries = list(entries.order_by("number")[:limit + 1])
            more = len(entries) > limit
            entries = entries[:limit]
            pks = [pk_field.to_python(entry.item) for entry in entries]
            items = {item.pk: item for item in model.objects.filter(pk__in=pks)}
            number = entries[-1].number if more else max(after, state.last)
            return Response({
                "saved": [self.get_serializer(items[pk]).data for pk in pks if pk in items],
                "deleted": [pk for pk in pks if pk not in items],
                "next": "%s:%d:%d" % (state.epoch, number, state.forgets),
                "more": more,
            })
