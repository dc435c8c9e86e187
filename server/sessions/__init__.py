"""nimmt.server.sessions: who a player is across connections, and how much one may ask.

- ``session.py``: ``Session``: a player named by a secret token, its link and table;
- ``limits.py``: token buckets, admission of connections, resume meters, log limits.
"""

from .limits import Admission, AddressMeters, LogLimiter, ResumeMeter, TokenBucket
from .session import Session, new_token

__all__ = ["Session", "new_token", "Admission", "AddressMeters", "LogLimiter", "ResumeMeter", "TokenBucket"]
