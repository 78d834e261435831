from rest_framework.pagination import LimitOffsetPagination, PageNumberPagination


class StandardPagination(PageNumberPagination):
    """The quickstart's page-number pagination, with the page size a client may ask for
    (?page_size=), as DRF's pagination guide shows."""

    page_size = 10
    page_size_query_param = "page_size"
    max_page_size = 1000


class ScorePagination(LimitOffsetPagination):
    """Limit/offset pagination, which a client's query windows need: `?limit=20&offset=40`."""

    default_limit = 100
    max_limit = 1000
