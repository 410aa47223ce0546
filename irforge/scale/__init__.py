"""Where the batch work of the corpus and embedding stages runs: in this process (and its
process pool) or across a Ray cluster. Stages describe their work as :class:`BatchJob` s and
hand them to an :class:`Executor`; see ``docs/scale.md``.
"""

from irforge.scale.executor import (
    BatchJob,
    Executor,
    LocalExecutor,
    active_executor,
    cluster,
    executor_for,
    using_executor,
)

__all__ = ["BatchJob", "Executor", "LocalExecutor", "active_executor", "cluster",
           "executor_for", "using_executor"]
