"""The environment's own machinery (tests/env), without starting any real component."""
from __future__ import annotations

import json
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.env import assets, emulator_process, pki
from tests.env.environment import Env
from tests.env.kubeconfig import write_kubeconfig
from tests.env.ports import free_ports
from tests.env.processes import ComponentError, Proc, alive, spawn, stop, wait_until


def test_free_ports_are_distinct_and_bindable():
    ports = free_ports(5)
    assert len(set(ports)) == 5
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


def test_spawn_stop_and_identity(tmp_path):
    proc = spawn("sleeper", [sys.executable, "-c", "import time; print('hi', flush=True); time.sleep(60)"],
                 tmp_path / "sleeper.log")
    assert alive(proc)
    stop(proc, timeout=5)
    assert not alive(proc)
    # A record whose start time does not match the live process is never taken for it (recycled pid).
    impostor = Proc(name="x", pid=1, start_ticks=-5, log="")
    assert not alive(impostor)


def test_stop_escalates_to_sigkill(tmp_path):
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); time.sleep(60)"
    proc = spawn("stubborn", [sys.executable, "-c", code], tmp_path / "stubborn.log")
    wait_until(proc, "printing", lambda: "up" in Path(proc.log).read_text(), 10)
    stop(proc, timeout=0.5)
    assert not alive(proc)


def test_wait_until_names_the_component_and_shows_its_log(tmp_path):
    proc = spawn("crasher", [sys.executable, "-c", "import sys; print('boom: port in use'); sys.exit(3)"],
                 tmp_path / "crasher.log")
    with pytest.raises(ComponentError) as err:
        wait_until(proc, "ready", lambda: False, 10)
    text = str(err.value)
    assert text.startswith("crasher: process") and "exited before ready" in text
    assert "boom: port in use" in text


def test_wait_until_times_out_loudly(tmp_path):
    proc = spawn("slow", [sys.executable, "-c", "import time; time.sleep(30)"], tmp_path / "slow.log")
    try:
        with pytest.raises(ComponentError, match=r"slow: not ready after \d+s \(last probe error: nope\)"):
            wait_until(proc, "ready", lambda: (_ for _ in ()).throw(RuntimeError("nope")), 0.3)
    finally:
        stop(proc, timeout=2)


def test_pki_makes_a_verifiable_chain_and_private_tokens(tmp_path):
    keys = pki.create_pki(tmp_path / "pki")
    crt, key = pki.issue_client_cert(keys, "alice", ("team-a", "team-b"))
    for cert in (keys.server_crt, crt):
        out = subprocess.run(["openssl", "verify", "-CAfile", str(keys.ca_crt), str(cert)],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr
    subject = subprocess.run(["openssl", "x509", "-in", str(crt), "-noout", "-subject"], capture_output=True,
                             text=True).stdout
    assert "CN = alice" in subject and "O = team-a" in subject and "O = team-b" in subject
    sans = subprocess.run(["openssl", "x509", "-in", str(keys.server_crt), "-noout", "-ext", "subjectAltName"],
                          capture_output=True, text=True).stdout
    assert "IP Address:127.0.0.1" in sans

    tokens = pki.write_token_file(keys, {"admin": ("system:masters",), "limited-user": ()})
    assert stat.S_IMODE(keys.tokens_csv.stat().st_mode) == 0o600
    rows = keys.tokens_csv.read_text().splitlines()
    assert rows == [f'{tokens["admin"]},admin,uid-admin,system:masters',
                    f'{tokens["limited-user"]},limited-user,uid-limited-user']
    assert tokens["admin"] != tokens["limited-user"]
    assert "token" not in (tmp_path / "pki" / "openssl.log").read_text().lower()


def test_token_kubeconfig_is_private(tmp_path):
    path = write_kubeconfig(tmp_path / "kc", "https://127.0.0.1:1", tmp_path / "ca.crt", "u", token="s3cret")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config = json.loads(path.read_text())
    assert config["users"][0]["user"] == {"token": "s3cret"}
    assert config["current-context"] == "u"


def test_faults_file_is_replaced_whole(tmp_path):
    path = tmp_path / "faults.json"
    emulator_process.write_faults(path, {"delay_seconds": 2})
    emulator_process.write_faults(path, {"ignore_offsets": True})
    assert json.loads(path.read_text()) == {"ignore_offsets": True}
    assert [p.name for p in tmp_path.iterdir()] == ["faults.json"]


def test_emulator_command_line_is_the_contract():
    argv = emulator_process.argv("/k", "http://c:1", "/f.json", "/e.log", "0.45", interval=1.5, cadence="fast")
    assert argv[1:] == ["-m", "tests.env.emulator", "--kubeconfig", "/k", "--connect-url", "http://c:1",
                        "--faults", "/f.json", "--interval", "1.5", "--log", "/e.log", "--strimzi", "0.45",
                        "--cadence", "fast"]
    from tests.env.emulator.__main__ import parse_args

    args = parse_args(argv[3:])
    assert (args.strimzi, args.cadence, args.interval) == ("0.45", "fast", 1.5)


def test_emulator_defaults_are_realistic_with_a_long_interval():
    """No test may pass by waiting for a 2-second periodic pass: the default interval is at least a minute."""
    argv = emulator_process.argv("/k", "http://c:1", "/f.json", "/e.log", "1.2")
    assert float(argv[argv.index("--interval") + 1]) >= 60
    assert argv[argv.index("--cadence") + 1] == "realistic"
    assert emulator_process.with_option(argv, "--cadence", "fast")[-1] == "fast"


def test_env_json_round_trip_and_public_view_has_no_secrets(tmp_path):
    env = Env(run_dir=str(tmp_path), kubeconfig="/k", limited_kubeconfig="/l", api_server="https://a",
              etcd_url="http://e", bootstrap_servers="b:1", connect_url="http://c", faults_file="/f",
              emulator_log="/el", emulator_command=["python"], versions={"kafka": "4.3.1"},
              processes={"etcd": Proc("etcd", 123, 456, "/log", ["etcd"])})
    env.save()
    loaded = Env.load(tmp_path / "env.json")
    assert loaded == env
    public = env.public()
    for key in ("run_dir", "kubeconfig", "limited_kubeconfig", "api_server", "bootstrap_servers", "connect_url",
                "faults_file", "versions"):
        assert key in public
    assert public["pids"] == {"etcd": 123}
    assert public["strimzi"] == "1.2" and public["served_versions"] == ["v1"]


def test_assets_come_from_env_sh_and_missing_ones_name_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("KO_CACHE", str(tmp_path))
    for name in ("TEST_ASSET_ETCD", "TEST_ASSET_KUBE_APISERVER", "KAFKA_LIB"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(assets.AssetError, match="run: bash tests/provision.sh etcd"):
        assets.find_assets()
    fake = tmp_path / "etcd"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    (tmp_path / "lib").mkdir()
    (tmp_path / "env.sh").write_text(f"export TEST_ASSET_ETCD={fake}\nexport TEST_ASSET_KUBE_APISERVER={fake}\n"
                                     f"export KAFKA_LIB={tmp_path / 'lib'}\n")
    found = assets.find_assets()
    assert found.etcd == fake and found.kafka_lib == tmp_path / "lib"


def test_a_component_another_process_restarted_is_followed_through_env_json(tmp_path):
    """The operator crash fault (tests/env/operator_faults.py) restarts the operator from a test process and saves it
    in env.json: every other holder of the environment (each pytest worker's check before a test, ``down``) must
    follow it there, not report the old pid dead."""
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    first = spawn("strimzi-operator", sleep, tmp_path / "first.log")
    env = Env(run_dir=str(tmp_path), kubeconfig="/k", limited_kubeconfig="/l", api_server="https://a",
              etcd_url="http://e", bootstrap_servers="b:1", connect_url="http://c", faults_file="/f",
              emulator_log="/el", emulator_command=[], versions={}, processes={"strimzi-operator": first})
    env.save()
    other = Env.load(env.env_json)  # another process's view
    stop(first, timeout=5)
    second = spawn("strimzi-operator", sleep, tmp_path / "second.log")
    other.processes["strimzi-operator"] = second
    other.save()
    try:
        assert env.dead_components() == []
        env.check_alive()
        assert env.processes["strimzi-operator"].pid == second.pid
    finally:
        stop(second, timeout=5)
    assert env.dead_components() == ["strimzi-operator"]  # and a real death is still reported


def test_at_most_so_many_environments_start_at_once(tmp_path, monkeypatch):
    import threading
    import time

    from tests.env import environment

    monkeypatch.setattr(environment, "STARTS_AT_ONCE", 2)
    inside, most, lock = [0], [0], threading.Lock()

    def start():
        with environment.start_slot(tmp_path):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.3)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=start) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert most[0] == 2 and inside[0] == 0
