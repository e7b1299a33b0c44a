"""The Ray engine: pipeline stages and data-parallel replicas as Ray actors.

Nothing here imports `ray` at module import: Ray is an optional extra
(`pip install mindjit[ray]`), imported when an executable is built with
`set_distributed(engine="ray")` / `MINDJIT_DISTRIBUTED=ray` (cluster.py).
"""
