"""A stand-in torch.distributed for tests/python/test_torch_marshalling.py: a
state the test sets (initialized, world size, rank, backend) and no transport:
the first collective raises Reached (samebits.parallel got past its checks),
except recv when state["recv_ok"] (it then receives nothing and returns)."""
state = {"initialized": False, "world": 1, "rank": 0, "backend": "gloo", "recv_ok": False}


class Reached(Exception):
    """A collective was called (what it was called with: args)."""


def is_available():
    return True


def is_initialized():
    return state["initialized"]


def get_world_size(group=None):
    return state["world"]


def get_rank(group=None):
    return state["rank"]


def get_backend(group=None):
    return state["backend"]


def get_global_rank(group, rank):
    return rank


def _reached(name):
    def fn(*args, **kwargs):
        raise Reached(name, args, kwargs)
    return fn


all_gather_into_tensor = _reached("all_gather_into_tensor")
all_gather = _reached("all_gather")
send = _reached("send")
_recv = _reached("recv")


def recv(*args, **kwargs):
    return None if state["recv_ok"] else _recv(*args, **kwargs)
