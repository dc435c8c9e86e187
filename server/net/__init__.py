"""nimmt.server.net: the wire side: one client connection, where the server is reached,
and its announcement on the LAN.

- ``connection.py``: ``ClientConnection``: reader, writer and heartbeat;
- ``addresses.py``: this machine's LAN addresses and the join hint;
- ``announce.py``: the server announced with DNS-SD over multicast DNS (``_nimmt._tcp``).
"""

from .addresses import join_hint, lan_addresses
from .connection import ClientConnection, peer_address

__all__ = ["ClientConnection", "peer_address", "join_hint", "lan_addresses"]
