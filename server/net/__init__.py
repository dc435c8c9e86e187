"""nimmt.server.net: the wire side: one client connection, and where the server is reached.

- ``connection.py``: ``ClientConnection``: reader, writer and heartbeat;
- ``addresses.py``: this machine's LAN addresses and the join hint.
"""

from .addresses import join_hint, lan_addresses
from .connection import ClientConnection, peer_address

__all__ = ["ClientConnection", "peer_address", "join_hint", "lan_addresses"]
