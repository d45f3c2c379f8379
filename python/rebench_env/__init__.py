"""rebench_env: what rebench's graders, workspaces and asset builders share.

Graders write their outcome with :func:`rebench_env.result.write_result` to the path rebench gives in
``REBENCH_RESULT``; rebench never parses a grader's stdout.
"""

from rebench_env.result import write_result

__all__ = ["write_result"]
