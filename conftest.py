"""pytest's setup for the nbval runs over solutions/ and notebooks/ (`make test`).

Each of those runs starts a Jupyter kernel per notebook in several processes at once
(pytest-xdist). jupyter_client chooses a kernel's TCP ports by binding and releasing them in the
starting process, so two processes starting kernels at the same moment can choose the same port:
the kernel then cannot bind it and dies ("Kernel died before replying to kernel_info", ZMQError
"Address already in use"), and every cell of that notebook errors without having run. A kernel
that dies while starting is started again, with fresh ports, up to KERNEL_STARTS times in all; a
notebook whose code fails still fails, since a kernel that has started is never restarted here.
"""

from __future__ import annotations

import pytest

KERNEL_STARTS = 3


def pytest_configure(config: pytest.Config) -> None:
    if not (config.getoption("nbval", default=False)
            or config.getoption("nbval_lax", default=False)):
        return
    from nbval import kernel

    start = kernel.start_new_kernel

    def start_until_it_answers(*args, **kwargs):
        for attempt in range(1, KERNEL_STARTS + 1):
            try:
                return start(*args, **kwargs)
            except RuntimeError:  # it died, or did not answer, before running anything
                if attempt == KERNEL_STARTS:
                    raise

    kernel.start_new_kernel = start_until_it_answers
