"""The OpenID provider the sign-in tests of this package share, started once a module."""

from collections.abc import Iterator

import pytest

from tests.helpers.oidc import OpenIdProvider, running_provider


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenIdProvider]:
    with running_provider(tmp_path_factory) as found:
        yield found
