from rest_framework.pagination import PageNumberPagination


class StandardPagination(PageNumberPagination):
    """The quickstart's page-number pagination, with the page size a client may ask for
    (?page_size=), as DRF's pagination guide shows."""

    page_size = 10
    page_size_query_param = "page_size"
    max_page_size = 1000
