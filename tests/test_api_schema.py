"""Property-based test of the live API against its own OpenAPI document (schemathesis):
generated requests to every read endpoint never get a 5xx and every answer conforms."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from cardarena_dashboard import create_app
from hypothesis import HealthCheck, settings

from .dashboard_data import seed, seed_schedules


@pytest.fixture
def api_schema(redis_url: str, key_prefix: str) -> Any:
    seed(redis_url, finished=2)
    seed_schedules(redis_url)
    # the fuzzer is one client sending hundreds of requests without the token: unlimited, so that
    # each is answered 401 (the 429 of the limit is tested in test_dashboard_cli.py)
    app = create_app(
        {"REDIS_URL": redis_url, "TESTING": True, "ADMIN_TOKEN": "s3cret-admin", "ADMIN_FAILED_AUTHS_PER_MINUTE": 0}
    )
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_openapi_document(case: Any) -> None:
    case.call_and_validate()
