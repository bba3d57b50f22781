"""What changed: a finished campaign compared with its baseline (:class:`CampaignChange`; docs/trend.md)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from swarmgym.models.base import Model

ChangeVerdict = Literal["regressed", "improved", "no change", "not comparable"]


class ChangeTest(Model):
    """One exact test of a campaign against its baseline: all specs together (``*``) or one spec."""

    spec: str
    """The spec id, or ``*`` for every spec the two sides share."""
    test: Literal["mcnemar", "fisher"]
    """``mcnemar``: exact McNemar on the discordant (spec, seed) pairs (the seeds matched); ``fisher``:
    Fisher's exact test of two independent pass rates."""
    nights: int = 1
    """Campaigns pooled on the new side: this one plus the ``nights - 1`` before it since the last change."""
    passes: int
    """Functional runs on the new side (infra runs never count)."""
    runs: int
    """Graded runs on the new side."""
    base_passes: int
    """Functional runs in the baseline."""
    base_runs: int
    """Graded runs in the baseline."""
    b: int | None = None
    """McNemar only: pairs the baseline passed and the new side failed."""
    c: int | None = None
    """McNemar only: pairs the baseline failed and the new side passed."""
    p: float
    """Exact two-sided p-value (for ``*``: Bonferroni-corrected over the windows tested)."""
    q: float | None = None
    """Benjamini–Hochberg adjusted p-value over the night's family (None: informational, not in a family)."""
    verdict: ChangeVerdict = "no change"
    """``regressed`` / ``improved`` when ``q`` is at or below its alpha, else ``no change``."""

    @property
    def rate(self) -> float:
        return self.passes / self.runs if self.runs else float("nan")

    @property
    def base_rate(self) -> float:
        return self.base_passes / self.base_runs if self.base_runs else float("nan")

    @property
    def diff(self) -> float:
        return self.rate - self.base_rate


class CampaignChange(Model):
    """What changed: a finished campaign compared with its arm's baseline (docs/trend.md)."""

    schema_version: int = 1
    """Version of this record's shape."""
    verdict: ChangeVerdict
    """``regressed`` if the whole or any spec got worse, else ``improved`` if any got better, else ``no change``;
    ``not comparable`` when there is nothing to compare with (first campaign, suite hash, adapter or prompt
    set differ)."""
    reason: str
    """The verdict in one line, with its numbers."""
    arm: str
    """The arm (adapter, variant and flags, as the hosts ran them), as ``bench-report`` names it."""
    series: str
    """What the baseline is drawn from: ``schedule:<name>``, or ``arm:<arm>`` for a campaign no schedule started."""
    schedule: str | None = None
    """The schedule that started the campaign (its ``on_change`` alarm applies)."""
    baseline_rule: Literal["pinned", "pooled", "none"]
    """``pinned`` (``swarmgym baseline set``), ``pooled`` (the series' campaigns since the last change), or
    ``none`` (nothing comparable)."""
    baseline: list[str] = Field(default_factory=list)
    """The baseline's campaign ids, newest first."""
    build: str | None = None
    """The swarm build this campaign ran (binary version; the simulator adds its fleet hash)."""
    baseline_builds: list[str] = Field(default_factory=list)
    """The builds the baseline ran."""
    alpha: float
    """The level of the overall test (``trend.alpha``)."""
    spec_alpha: float
    """The false-discovery rate of the per-spec tests (``trend.spec_alpha``)."""
    overall: ChangeTest | None = None
    """The deciding overall test: the window of nights with the smallest p-value."""
    windows: list[ChangeTest] = Field(default_factory=list)
    """The overall test of each window tested (1, 2, … nights on the new side)."""
    specs: list[ChangeTest] = Field(default_factory=list)
    """One test per spec (this campaign alone against the baseline)."""
    previous: ChangeTest | None = None
    """This campaign against the previous campaign of the series alone (paired when the seeds match);
    informational."""
    counts: dict[str, list[int]] = Field(default_factory=dict)
    """This campaign's own ``[passes, runs]`` per spec: what later campaigns pool."""
    family: int = 0
    """Tests in the night's per-spec FDR family (this campaign's and the other arms' finished that night)."""
    created: float = 0.0
    """When the campaign was planned (orders the series)."""
    hard: bool = False
    """Graded on the hard prompts (tier extreme): never compared with normal prompts."""
    seeds: list[int] = Field(default_factory=list)
    """The seeds this campaign's runs used, sorted: with ``replays`` and the build, which units it ran."""
    replays: bool = False
    """Its swarm replays a seed (the simulator): a later campaign of the same build and seeds is no new evidence."""
    folded: list[str] = Field(default_factory=list)
    """Campaigns left out of the baseline because they ran the very units of one already in it (or of this one)
    on a swarm that replays seeds: evidence counted once."""
