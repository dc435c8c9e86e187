"""Small protections: a token bucket for the request rate of one connection.

>>> bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
>>> [bucket.take(0.0) for _ in range(5)]
[True, True, True, False, False]
>>> bucket.take(1.0)  # 2 tokens came back, 2 were owed
False
>>> bucket.take(2.0)
True
"""

from __future__ import annotations

__all__ = ["TokenBucket"]


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up.

    ``take(now)`` spends one token and says whether the request may go on. A
    refused request still costs a token, so the bucket goes into debt while a
    client keeps sending too fast; ``abusive`` says that the debt has reached a
    whole ``burst``: the client is sending at well over the rate, for a while.
    """

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now

    def take(self, now: float) -> bool:
        elapsed = now - self.stamp
        if elapsed > 0:
            self.tokens = min(float(self.burst), self.tokens + elapsed * self.rate)
            self.stamp = now
        self.tokens -= 1.0
        return self.tokens >= 0.0

    @property
    def abusive(self) -> bool:
        return self.tokens <= -self.burst
