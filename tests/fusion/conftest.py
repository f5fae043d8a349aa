"""Each test of lazy mode starts with lazy_policy's counts empty: what a test records must
not depend on which calls earlier tests ran replayed on a fusing device."""

import pytest

from candlewick.fusion import lazy_policy


@pytest.fixture(autouse=True)
def fresh_lazy_policy():
    lazy_policy.reset()
    yield
    lazy_policy.reset()
