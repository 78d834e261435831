from django.urls import include, path
from rest_framework import routers

from notes import views

router = routers.DefaultRouter()
router.register(r"notes", views.NoteViewSet)
router.register(r"tasks", views.TaskViewSet)
router.register(r"scores", views.ScoreViewSet)

urlpatterns = [
    path("", include(router.urls)),
    path("__forget_deletions/<str:resource>/", views.forget),
]
