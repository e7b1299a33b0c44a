"""Makes mindjit's dialects and passes known to xDSL tools (entry point `xdsl.universe`)."""

from __future__ import annotations

from xdsl.universe import Universe

from mindjit.dialects.context import mindjit_dialects
from mindjit.driver.passes import mindjit_pass_factories

MINDJIT_UNIVERSE = Universe(all_dialects=mindjit_dialects(), all_passes=mindjit_pass_factories())
