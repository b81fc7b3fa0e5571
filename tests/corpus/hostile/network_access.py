# threat: connects to the grading machine's loopback and looks for a way out.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import socket

escaped = []
for family, address in ((socket.AF_INET, ("127.0.0.1", 47361)),
                        (socket.AF_UNIX, "\0hostile-canary-socket")):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as connection:
            connection.settimeout(2)
            connection.connect(address)
            connection.sendall(b"hostile submission was here\n")
            escaped.append(f"connected to {address!r}")
    except OSError:
        pass
try:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as datagram:
        datagram.sendto(b"hostile submission was here\n", ("127.0.0.1", 47361))
except OSError:
    pass
interfaces = [name for _, name in socket.if_nameindex()] if hasattr(socket, "if_nameindex") else []
with open("/proc/net/route") as routes:
    default_route = any(line.split()[1] == "00000000" for line in routes.readlines()[1:])
if default_route or [name for name in interfaces if name != "lo"]:
    escaped.append(f"network interfaces {interfaces}, default route {default_route}")
else:
    # Only inside an empty network namespace: this must fail without sending anything.
    try:
        with socket.create_connection(("192.0.2.1", 80), timeout=2):
            escaped.append("connected to 192.0.2.1")
    except OSError:
        pass
report = "ESCAPED: " + "; ".join(escaped) if escaped else "no network"
print(report, flush=True)


def parse_cron_field(field, low, high):
    raise RuntimeError(report)
