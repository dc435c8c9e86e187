"""The small protections of server/sessions/limits.py, without a server: the exact
waits, caps and boundaries a client or an operator would notice (the first request
over a limit is refused, the last under it is not). Expected values by hand."""

from __future__ import annotations

import math

from nimmt.server.sessions import limits
from nimmt.server.sessions.limits import (
    FEW, HEAVY, Admission, AddressMeters, LogLimiter, ResumeMeter, TokenBucket, left_out,
)


def test_the_documented_constants():
    assert (limits.FORGIVE, FEW, HEAVY, limits.SILENT_AFTER) == (300.0, 4, 8, 1.0)
    assert (limits.MAX_STRUCK, limits.MAX_METERS) == (4096, 1024)


def test_a_bucket_lets_its_burst_through_then_refills_at_its_rate():
    bucket = TokenBucket(rate=2.0, burst=3, now=10.0)
    assert [bucket.take(10.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.tokens == -1.0
    assert bucket.take(11.0) is True  # 2 tokens back: the debt paid, one spent
    assert bucket.tokens == 0.0
    assert bucket.take(11.0) is False  # no time passed: nothing came back
    assert bucket.take(9.0) is False  # a clock going back gives nothing
    assert bucket.tokens == -2.0
    assert bucket.take(100.0) is True  # refills to its burst, never more
    assert bucket.tokens == 2.0


def test_a_bucket_turns_abusive_when_its_debt_is_a_whole_burst():
    bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
    for _ in range(3):
        bucket.take(0.0)
    assert bucket.tokens == -1.0 and not bucket.abusive
    bucket.take(0.0)
    assert bucket.tokens == -2.0 and bucket.abusive
    bucket.take(0.0)
    assert bucket.tokens == -3.0 and bucket.abusive  # deeper in debt: still abusive


def test_wait_says_how_long_until_a_whole_token_and_spends_nothing_then():
    bucket = TokenBucket(rate=4.0, burst=2, now=0.0)
    assert [bucket.wait(0.0), bucket.wait(0.0)] == [0.0, 0.0]
    assert bucket.wait(0.0) == 0.25
    assert bucket.wait(0.0) == 0.25  # refused requests are not counted
    assert bucket.wait(0.125) == 0.125
    assert bucket.wait(0.25) == 0.0


def test_give_back_returns_a_token_but_never_over_the_burst():
    bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
    bucket.wait(0.0)
    bucket.give_back()
    assert bucket.tokens == 2.0
    bucket.give_back()
    assert bucket.tokens == 2.0
    assert [bucket.wait(0.0), bucket.wait(0.0)] == [0.0, 0.0]
    bucket.give_back()  # one token back: one more request now, not two
    assert [bucket.wait(0.0), bucket.wait(0.0)] == [0.0, 1.0]


def test_full_is_true_from_the_moment_the_bucket_has_refilled():
    bucket = TokenBucket(rate=2.0, burst=2, now=0.0)
    bucket.take(0.0)
    bucket.take(0.0)
    assert not bucket.full(0.5)
    assert bucket.full(1.0)
    assert bucket.full(5.0)


def test_address_meters_share_one_bucket_per_address():
    meters = AddressMeters(rate=2.0, burst=1)
    assert meters.wait("a", 0.0) == 0.0
    assert meters.wait("a", 0.0) == 0.5
    assert meters.wait("b", 0.0) == 0.0
    assert meters.wait("a", 0.5) == 0.0


def test_address_meters_forget_only_the_refilled_ones_once_there_are_many():
    meters = AddressMeters(rate=1.0, burst=1)
    for n in range(limits.MAX_METERS - 1):
        meters.wait(f"idle{n}", 0.0)
    meters.wait("busy", 10.0)  # the 1024th: nothing forgotten yet
    assert len(meters._meters) == limits.MAX_METERS
    meters.wait("new", 10.5)  # the idle ones have refilled by then; busy has not
    assert set(meters._meters) == {"busy", "new"}
    assert meters.wait("busy", 10.5) == 0.5  # its debt is remembered


def test_address_meters_prune_again_once_over_the_cap():
    meters = AddressMeters(rate=1.0, burst=1)
    for n in range(limits.MAX_METERS + 1):  # all busy: none can go
        meters.wait(f"busy{n}", 0.0)
    assert len(meters._meters) == limits.MAX_METERS + 1
    meters.wait("new", 5.0)  # all refilled by now: forgotten
    assert set(meters._meters) == {"new"}


def test_the_per_address_cap_refuses_the_first_over_it():
    gate = Admission(connections=100, per_address=3, unwelcomed=100, unwelcomed_per_address=100)
    assert [gate.admit(n, "10.0.0.1").refused for n in range(3)] == [None] * 3
    assert gate.admit(3, "10.0.0.1").refused == "too many connections from your address (3)"
    assert gate.admit(4, "10.0.0.2").refused is None
    gate.gone(0)
    assert gate.admit(5, "10.0.0.1").refused is None
    assert len(gate) == 4
    one = Admission(connections=100, per_address=1, unwelcomed=100, unwelcomed_per_address=100)
    assert one.admit("a", "10.0.0.1").refused is None  # the first from an address holds 0
    assert one.admit("b", "10.0.0.1").refused == "too many connections from your address (1)"


def test_connections_without_an_address_count_only_against_the_overall_cap():
    gate = Admission(connections=3, per_address=1, unwelcomed=100, unwelcomed_per_address=1)
    assert [gate.admit(n, None).refused for n in range(3)] == [None] * 3
    assert gate.admit(3, None, now=5.0).refused == "the server has as many connections as it allows"


def test_the_reserved_connections_are_kept_for_addresses_holding_fewer_than_few():
    gate = Admission(connections=10, per_address=10, unwelcomed=100,
                     unwelcomed_per_address=100, reserved=3)
    assert [gate.admit(("a", n), "a").refused for n in range(7)] == [None] * 7
    # 7 of 10 in use: a, holding 7, may not take the last 3
    assert gate.admit(("a", 7), "a").refused == (
        "the server keeps its last 3 connections for addresses that hold fewer than 4, "
        "and yours holds 7")
    assert gate.admit(("b", 0), "b").refused is None  # b holds 0 (fewer than 4)
    assert gate.admit(("a", 7), "a").refused is not None  # 8 of 10 in use: still not a
    for n in (1, 2):
        assert gate.admit(("b", n), "b").refused is None  # b holds 1, 2
    assert len(gate) == 10


def test_an_address_holding_exactly_few_does_not_get_the_reserved_ones():
    gate = Admission(connections=8, per_address=10, unwelcomed=100,
                     unwelcomed_per_address=100, reserved=4)
    for n in range(4):
        gate.admit(("b", n), "b")
    assert gate.admit(("b", 4), "b").refused is not None  # holds 4 = FEW, 4 of 8 used
    gate = Admission(connections=8, per_address=10, unwelcomed=100,
                     unwelcomed_per_address=100, reserved=4)
    for n in range(3):
        gate.admit(("c", n), "c")
    gate.admit("x", "x")
    assert gate.admit(("c", 3), "c").refused is None  # holds 3 < FEW: 4 of 8 used


def full_gate(spare=None):
    """A server of 10 connections full: 8 from "big" (HEAVY), 2 from "small"."""
    gate = Admission(connections=10, per_address=10, unwelcomed=100,
                     unwelcomed_per_address=100, spare=spare)
    for n in range(HEAVY):
        assert gate.admit(("big", n), "big", now=float(n)).refused is None
    gate.admit(("small", 0), "small", now=0.0)
    gate.admit(("small", 1), "small", now=0.0)
    return gate


def test_a_full_server_closes_the_heavy_addresses_oldest_silent_one_for_a_newcomer():
    gate = full_gate()
    # big's oldest has been silent since 0.0: at 0.9 not long enough, at 1.0 it is
    assert gate.admit("new", "new", now=0.9).refused == (
        "the server has as many connections as it allows")
    assert gate.admit("new", "new", now=1.0) == limits.Admitted(None, (("big", 0),))
    assert len(gate) == 10


def test_a_full_server_refuses_a_newcomer_from_an_address_holding_few_or_more():
    gate = Admission(connections=HEAVY + FEW, per_address=20, unwelcomed=100,
                     unwelcomed_per_address=100)
    for n in range(HEAVY):
        gate.admit(("big", n), "big", now=0.0)
    for n in range(FEW):
        gate.admit(("c", n), "c", now=0.0)
    # full; c holds FEW: it may not push anyone out, however silent big's are
    assert gate.admit(("c", FEW), "c", now=60.0).refused == (
        "the server has as many connections as it allows")
    gate.gone(("c", 0))
    gate.admit("x", "x", now=0.0)
    # c holds FEW - 1 now: it may
    assert gate.admit(("c", FEW), "c", now=60.0).evict == (("big", 0),)
    gate = Admission(connections=HEAVY + FEW + 1, per_address=20, unwelcomed=100,
                     unwelcomed_per_address=100)
    for n in range(HEAVY):
        gate.admit(("big", n), "big", now=0.0)
    for n in range(FEW + 1):
        gate.admit(("c", n), "c", now=0.0)
    assert gate.admit(("c", FEW + 1), "c", now=60.0).refused == (  # more than FEW: no
        "the server has as many connections as it allows")


def test_an_address_holding_less_than_heavy_is_not_pushed_out():
    gate = Admission(connections=HEAVY, per_address=20, unwelcomed=100,
                     unwelcomed_per_address=100)
    for n in range(HEAVY - 1):
        gate.admit(("big", n), "big")
    gate.admit("other", "other")
    assert gate.admit("new", "new", now=100.0).refused is not None


def test_a_full_server_closes_the_longest_quiet_welcomed_one_that_spare_allows():
    quiet = {("big", n): float(n) for n in range(HEAVY)}
    quiet[("big", 5)] = 50.0
    quiet[("big", 6)] = None  # at a table: may not go
    quiet[("big", 7)] = 99.0
    gate = full_gate(spare=lambda conn: quiet[conn] if conn != ("big", 7) else None)
    for n in range(HEAVY):
        gate.welcomed(("big", n))
    assert gate.admit("new", "new", now=100.0) == limits.Admitted(None, (("big", 5),))


def test_a_welcomed_connection_quiet_for_no_time_at_all_may_still_make_room():
    gate = full_gate(spare=lambda conn: 0.0)
    for n in range(HEAVY):
        gate.welcomed(("big", n))
    assert gate.admit("new", "new", now=100.0) == limits.Admitted(None, (("big", 0),))


def test_the_longest_quiet_goes_even_when_younger_ones_follow_it():
    gate = full_gate(spare=lambda conn: 9.0 if conn == ("big", 0) else 1.0)
    for n in range(HEAVY):
        gate.welcomed(("big", n))
    assert gate.admit("new", "new", now=100.0).evict == (("big", 0),)


def test_without_spare_the_next_heavy_address_gives_its_silent_one():
    gate = Admission(connections=2 * HEAVY + 1, per_address=20, unwelcomed=100,
                     unwelcomed_per_address=100)
    for n in range(HEAVY + 1):
        gate.admit(("a", n), "a", now=0.0)
        gate.welcomed(("a", n))
    for n in range(HEAVY):
        gate.admit(("b", n), "b", now=0.0)
    assert gate.admit("new", "new", now=5.0).evict == (("b", 0),)


def test_silent_means_a_whole_second_since_it_connected():
    gate = Admission(connections=100, per_address=100, unwelcomed=100, unwelcomed_per_address=1)
    gate.admit("a", "x", now=0.5)
    assert gate.admit("b", "x", now=1.0).evict == ()
    assert gate.admit("c", "x", now=1.5).evict == ("a",)


def test_a_server_of_hundreds_is_full_at_its_cap_and_an_address_count_drops_by_one():
    gate = Admission(connections=300, per_address=4, unwelcomed=1000, unwelcomed_per_address=10)
    for n in range(300):
        assert gate.admit(n, f"10.0.{n // 4}.0").refused is None
    assert gate.admit(300, "10.9.0.0").refused == "the server has as many connections as it allows"
    gate.gone(0)  # 10.0.0.0 held 4: now 3, room for one more of its own, not two
    assert gate.admit(301, "10.0.0.0").refused is None
    gate.gone(1)
    gate.gone(2)
    gate.gone(4)  # room on the server: only 10.0.0.0's own cap may refuse
    assert [gate.admit(n, "10.0.0.0").refused is None for n in (302, 303, 304)] == [
        True, True, False]


def test_a_spare_welcomed_one_is_found_behind_an_unwelcomed_one():
    gate = full_gate(spare=lambda conn: 5.0)
    for n in range(1, HEAVY):
        gate.welcomed(("big", n))
    # ("big", 0) has not said hello but is not silent yet; ("big", 1) may go
    assert gate.admit("new", "new", now=0.5).evict == (("big", 1),)


def test_admit_without_a_time_is_at_time_zero():
    gate = Admission(connections=100, per_address=100, unwelcomed=100, unwelcomed_per_address=1)
    gate.admit("a", "x")
    assert gate.admit("b", "x", now=1.0).evict == ("a",)
    gate = Admission(connections=100, per_address=100, unwelcomed=100, unwelcomed_per_address=1)
    gate.admit("a", "x")
    assert gate.admit("b", "x", now=0.5).evict == ()  # silent for 0.5 s only, not 1.5


def test_without_spare_welcomed_connections_are_never_closed_for_room():
    gate = full_gate()
    for n in range(HEAVY):
        gate.welcomed(("big", n))
    assert gate.admit("new", "new", now=100.0).refused is not None


def test_the_heaviest_address_gives_way_first():
    gate = Admission(connections=2 * HEAVY + 1, per_address=20, unwelcomed=100,
                     unwelcomed_per_address=100)
    for n in range(HEAVY):
        gate.admit(("b", n), "b", now=0.0)
    for n in range(HEAVY + 1):
        gate.admit(("a", n), "a", now=0.0)
    assert gate.admit("new", "new", now=5.0).evict == (("a", 0),)


def test_unwelcomed_per_address_the_oldest_silent_one_makes_room():
    gate = Admission(connections=100, per_address=100, unwelcomed=100, unwelcomed_per_address=2)
    gate.admit("a", "x", now=0.0)
    gate.admit("b", "x", now=0.5)
    assert gate.admit("c", "x", now=0.9).evict == ()  # nobody silent for 1 s yet
    assert gate.admit("d", "x", now=1.6).evict == ("a", "b")  # both silent >= 1 s
    assert len(gate) == 2


def test_at_the_overall_unwelcomed_cap_the_oldest_of_all_goes_unless_one_address_crowds():
    gate = Admission(connections=100, per_address=100, unwelcomed=3, unwelcomed_per_address=2)
    gate.admit("a1", "a", now=0.0)
    gate.admit("b1", "b", now=0.0)
    gate.admit("c1", "c", now=0.0)
    assert gate.admit("d1", "d", now=0.0).evict == ("a1",)
    gate = Admission(connections=100, per_address=100, unwelcomed=4, unwelcomed_per_address=2)
    gate.admit("a1", "a", now=0.0)
    gate.admit("b1", "b", now=0.0)
    gate.admit("b2", "b", now=0.0)
    gate.admit("b3", "b", now=0.0)  # b over its own cap (let in at once)
    assert gate.admit("c1", "c", now=0.0).evict == ("b1",)
    gate = Admission(connections=100, per_address=100, unwelcomed=3, unwelcomed_per_address=2)
    gate.admit("a1", "a", now=0.0)
    gate.admit("b1", "b", now=0.0)
    gate.admit("b2", "b", now=0.0)  # b at its cap, not over it
    assert gate.admit("c1", "c", now=0.0).evict == ("a1",)
    gate = Admission(connections=100, per_address=100, unwelcomed=3, unwelcomed_per_address=3)
    gate.admit("a1", "a", now=0.0)
    gate.admit("b1", "b", now=0.0)
    gate.admit("b2", "b", now=0.0)  # b holds the most, under its cap
    assert gate.admit("c1", "c", now=0.0).evict == ("a1",)


def test_the_overall_unwelcomed_cap_holds_at_hundreds():
    gate = Admission(connections=1000, per_address=10, unwelcomed=300, unwelcomed_per_address=10)
    for n in range(300):
        assert gate.admit(n, f"10.0.{n // 256}.{n % 256}", now=0.0).evict == ()
    assert gate.admit(300, "10.1.0.0", now=0.0).evict == (0,)
    assert gate.admit(301, "10.1.0.1", now=0.0).evict == (1,)


def test_welcomed_connections_do_not_count_as_unwelcomed():
    gate = Admission(connections=100, per_address=100, unwelcomed=2, unwelcomed_per_address=2)
    gate.admit("a", "x", now=0.0)
    gate.welcomed("a")
    gate.admit("b", "x", now=5.0)
    assert gate.admit("c", "x", now=5.0).evict == ()


def test_gone_forgets_a_connection_and_is_harmless_twice():
    gate = Admission(connections=100, per_address=2, unwelcomed=100, unwelcomed_per_address=100)
    gate.admit("a", "x")
    gate.admit("b", "x")
    gate.gone("a")
    gate.gone("a")
    assert len(gate) == 1
    assert gate.admit("c", "x").refused is None
    gate.gone("b")
    gate.gone("c")
    assert (gate._count, gate._of, gate._waiting, gate._waiting_of) == ({}, {}, {}, {})


def test_a_flooded_address_cools_down_for_exactly_the_cooldown():
    gate = Admission(connections=10, per_address=10, unwelcomed=10,
                     unwelcomed_per_address=10, cooldown=2.5)
    assert gate.cooling("1.2.3.4", 0.0) == 0.0
    assert gate.flooded("1.2.3.4", now=10.0) == 2.5
    assert gate.cooling("1.2.3.4", 11.0) == 1.5
    assert gate.cooling("1.2.3.4", 12.5) == 0.0
    assert gate.cooling("1.2.3.4", 20.0) == 0.0
    assert gate.cooling(None, 11.0) == 0.0
    assert gate.flooded(None, now=10.0) == 0.0
    off = Admission(connections=10, per_address=10, unwelcomed=10,
                    unwelcomed_per_address=10, cooldown=0.0)
    assert off.flooded("1.2.3.4", now=10.0) == 0.0
    assert off.cooling("1.2.3.4", 10.0) == 0.0
    assert off._cooling == {}  # with no cool-down, no flooded address is remembered


def test_the_flooded_addresses_are_pruned_past_max_struck_keeping_the_waiting_ones():
    gate = Admission(connections=10, per_address=10, unwelcomed=10,
                     unwelcomed_per_address=10, cooldown=1.0)
    gate.flooded("a", now=0.0)
    gate.flooded("b", now=5.0)
    # below MAX_STRUCK nothing is pruned: a flood does not pay for a pass over them all
    assert set(gate._cooling) == {"a", "b"}
    gate = Admission(connections=10, per_address=10, unwelcomed=10,
                     unwelcomed_per_address=10, cooldown=1.0)
    for n in range(limits.MAX_STRUCK - 1):
        gate.flooded(f"old{n}", now=0.0)
    gate.flooded("mid", now=1.0)  # old's waits are over, but there are only MAX_STRUCK
    assert len(gate._cooling) == limits.MAX_STRUCK
    gate.flooded("late", now=2.0)  # one more: old's (over at 1.0) and mid's (now) go
    assert set(gate._cooling) == {"late"}
    assert gate.cooling("late", 2.25) == 0.75


def test_a_session_resume_meter_doubles_its_cooldown_up_to_the_max_and_forgives():
    meter = ResumeMeter(rate=1.0, burst=5, now=0.0)
    assert meter.wait(0.0) == 0.0
    assert meter.flooded(10.0, cooldown=2.0, cooldown_max=7.0) == 2.0
    assert meter.wait(10.0) == 2.0
    assert meter.wait(11.5) == 0.5
    assert meter.wait(12.0) == 0.0
    assert meter.flooded(20.0, cooldown=2.0, cooldown_max=7.0) == 4.0
    assert meter.flooded(30.0, cooldown=2.0, cooldown_max=7.0) == 7.0
    assert meter.until == 37.0
    # forgiven FORGIVE seconds after the last cool-down ended, not a moment before
    assert meter.flooded(37.0 + 299.0, cooldown=2.0, cooldown_max=100.0) == 16.0
    end = 336.0 + 16.0
    assert meter.flooded(end + 300.0, cooldown=2.0, cooldown_max=100.0) == 2.0
    assert meter.flooded(1000.0, cooldown=0.0, cooldown_max=100.0) == 0.0
    assert meter.strikes == 1
    assert meter.flooded(2000.0, cooldown=2.0, cooldown_max=100.0) == 2.0  # long after: forgiven


def test_a_flood_with_no_cooldown_is_no_strike_and_a_one_second_cooldown_is_one_second():
    meter = ResumeMeter(rate=1.0, burst=1, now=0.0)
    assert meter.flooded(0.0, cooldown=0.0, cooldown_max=30.0) == 0.0
    assert meter.wait(0.0) == 0.0
    assert meter.flooded(10.0, cooldown=1.0, cooldown_max=30.0) == 1.0  # not doubled
    assert meter.flooded(20.0, cooldown=1.0, cooldown_max=30.0) == 2.0


def test_admission_defaults_a_one_second_cooldown_and_no_reserved_connections():
    gate = Admission(connections=5, per_address=10, unwelcomed=10, unwelcomed_per_address=10)
    assert gate.flooded("1.2.3.4", now=0.0) == 1.0
    assert [gate.admit(n, "10.0.0.1").refused for n in range(5)] == [None] * 5


def test_a_session_may_resume_at_the_very_end_of_its_cooldown_and_that_resume_counts():
    early = ResumeMeter(rate=1.0, burst=1, now=0.0)
    assert early.flooded(0.0, cooldown=3.0, cooldown_max=30.0) == 3.0
    assert early.wait(1.0) == 2.0
    meter = ResumeMeter(rate=0.5, burst=1, now=0.0)
    assert meter.flooded(10.0, cooldown=3.0, cooldown_max=30.0) == 3.0
    assert meter.wait(12.5) == 0.5
    assert meter.wait(13.0) == 0.0
    assert meter.wait(13.0) == 2.0  # its one token was spent by that resume


def test_the_log_limiter_counts_what_it_left_out_per_kind():
    limiter = LogLimiter(rate=2.0, burst=2)
    assert [limiter.allow("refused", 0.0) for _ in range(4)] == [0, 0, None, None]
    assert limiter.allow("other", 0.0) == 0
    assert limiter.allow("refused", 0.5) == 2
    assert limiter.allow("refused", 1.0) == 0
    defaults = LogLimiter()
    assert [defaults.allow("k", 0.0) for _ in range(6)] == [0] * 5 + [None]
    assert defaults.allow("k", 0.5) is None  # one line a second
    assert defaults.allow("k", 1.0) == 2


def test_the_texts_a_client_or_an_operator_reads():
    assert left_out(0) == ""
    assert left_out(3) == " (3 more like it not logged)"
    assert limits.flooding_text(4) == (
        "a connection from your address was closed for flooding the server: try again in 4 s")
    assert limits.resuming_text(2, True) == (
        "a connection of this session was closed for flooding the server: "
        "resume it again in 2 s")
    assert limits.resuming_text(2, False) == "this session has resumed too often: resume it again in 2 s"


def test_admitted_is_a_plain_value():
    assert limits.Admitted() == limits.Admitted(None, ())
    assert math.isinf(ResumeMeter(1.0, 1, 0.0).until)
