"""The radio guest: one throw-away qemu virtual machine running Debian's own kernel with simulated Wi-Fi radios
(mac80211_hwsim) and hostapd access points, in which a command runs against the host's own files.

``python3 -m testlan.radio.guest [--timeout SECONDS] [--radios N] -- COMMAND…`` (``scripts/radio-guest``) boots the
guest, prepares the air (testlan/radio/air.sh), runs COMMAND in the repository's root inside it, streams its
stdout and stderr here and exits with its status. The recipe (../shared/RADIO-NOTES.md has the measurements):

- The kernel is Debian's (the one ``linux-image-amd64`` depends on), fetched with ``apt-get download`` and unpacked
  with ``dpkg-deb -x`` into ``.build-radio/kernel-VERSION`` (cached: ~405 MB; nothing is installed on the host).
- The initramfs (``.build-radio/initramfs-VERSION-HASH.cpio``, cached per kernel and first stage) is static busybox,
  the modules the 9p and overlay mounts need and ``init``, which mounts the host's root read-only over 9p with a tmpfs
  overlay on top and switches into it: host-built binaries and Python run unchanged inside, their writes vanish.
- A second 9p share, read-write, is the run's folder (``.build-radio/runs/N``): the job script goes in, results
  (setup.log, the benchmark's numbers) come out; it is copied to ``.build-radio/last-run`` afterwards. Three
  virtio-serial ports carry the command's stdout and stderr and the control lines (``booted``, ``ready``, ``status N``).
- No network device: nothing on the host's interfaces changes. TCG unless a real KVM exists (this machine's
  /dev/kvm is PVM, which runs only specially built guests).

The guest is torn down on every path: the command's end powers it off; a timeout, Ctrl-C, SIGTERM or an error here
kills qemu, and qemu dies with this process (PR_SET_PDEATHSIG) if it is killed outright.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CACHE = ROOT / ".build-radio"
# What the 9p root and the overlay need before the root is mounted (their dependencies come from modprobe).
INITRAMFS_MODULES = ("9p", "9pnet_virtio", "overlay", "virtio_pci", "virtio_console")
BUSYBOX = Path("/bin/busybox")
PR_SET_PDEATHSIG = 1


class GuestError(Exception):
    """The guest could not be prepared, booted or finished; the message names the step and the evidence."""


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Runs a host command, raising GuestError with its stderr when it fails."""
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise GuestError(f"{shlex.join(argv)} failed ({result.returncode}): {result.stderr.strip()}")
    return result


def kernel_version() -> str:
    """The version of Debian's current kernel: what the linux-image-amd64 metapackage depends on."""
    for line in run(["apt-cache", "depends", "linux-image-amd64"]).stdout.splitlines():
        name = line.strip().removeprefix("Depends: ")
        if name.startswith("linux-image-") and name != line.strip():
            return name.removeprefix("linux-image-")
    raise GuestError("apt-cache depends linux-image-amd64 names no linux-image-VERSION package")


def kernel_tree(version: str) -> Path:
    """Debian's kernel VERSION unpacked (vmlinuz, modules with their index) under .build-radio, cached."""
    tree = CACHE / f"kernel-{version}"
    if (tree / "ready").exists():
        return tree
    download = CACHE / "download"
    shutil.rmtree(download, ignore_errors=True)
    shutil.rmtree(tree, ignore_errors=True)
    download.mkdir(parents=True)
    print(f"radio-guest: downloading linux-image-{version} (~70 MB, cached in {tree})", file=sys.stderr)
    run(["apt-get", "download", f"linux-image-{version}"], cwd=download)
    (package,) = download.glob("*.deb")
    run(["dpkg-deb", "-x", str(package), str(tree)])
    run(["depmod", "-b", str(tree), version])
    shutil.rmtree(download)
    (tree / "ready").touch()
    return tree


def initramfs(tree: Path, version: str) -> Path:
    """The first stage's cpio archive (busybox, the mount modules uncompressed, init), cached per kernel and init."""
    init = (HERE / "init").read_bytes()
    key = hashlib.sha256(init + BUSYBOX.read_bytes()).hexdigest()[:12]
    archive = CACHE / f"initramfs-{version}-{key}.cpio"
    if archive.exists():
        return archive
    listing = run(["modprobe", "-d", str(tree), "-S", version, "--show-depends", "-a", *INITRAMFS_MODULES]).stdout
    modules = [line.split()[1] for line in listing.splitlines() if line.startswith("insmod ")]
    with tempfile.TemporaryDirectory(dir=CACHE) as staging:
        staging = Path(staging)
        for folder in ("bin", "modules", "dev", "proc", "sys"):
            (staging / folder).mkdir()
        shutil.copy2(BUSYBOX, staging / "bin" / "busybox")
        shutil.copy2(HERE / "init", staging / "init")
        order = []
        for module in dict.fromkeys(modules):  # in load order, each once
            name = Path(module).name.removesuffix(".xz")
            data = Path(module).read_bytes()
            if module.endswith(".xz"):
                data = run(["xz", "-dc", module], text=False).stdout
            (staging / "modules" / name).write_bytes(data)
            order.append(name)
        (staging / "modules.order").write_text("\n".join(order) + "\n")
        files = sorted(str(path.relative_to(staging)) for path in staging.rglob("*"))
        partial = archive.with_suffix(".partial")
        with partial.open("wb") as out:
            subprocess.run(["cpio", "--quiet", "-o", "-H", "newc"], input="\n".join(files).encode(), cwd=staging,
                           stdout=out, check=True)
        partial.rename(archive)
    return archive


def accelerator() -> list[str]:
    """KVM where it is real (a writable /dev/kvm that is not PVM), else multi-threaded TCG."""
    if os.access("/dev/kvm", os.R_OK | os.W_OK) and not Path("/sys/module/kvm_pvm").exists():
        return ["-accel", "kvm", "-cpu", "host"]
    return ["-accel", "tcg,thread=multi", "-cpu", "max"]


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _pump(source: int, sink) -> None:
    """Copies a pipe to one of our streams until the writer closes it."""
    with os.fdopen(source, "rb", buffering=0) as pipe:
        while chunk := pipe.read(65536):
            sink.write(chunk)
            sink.flush()


class Guest:
    """One boot of the radio guest running `command` (a shell command line) in the repository's root."""

    def __init__(self, command: str, *, radios: int = 10, timeout: float = 1800, env: dict[str, str] | None = None,
                 memory: str = "768M") -> None:
        self.command, self.radios, self.timeout, self.env, self.memory = command, radios, timeout, env or {}, memory
        self.booted: float | None = None  # seconds from launch to the second stage
        self.ready: float | None = None  # … to the air being up (the command starts)
        self.status: int | None = None

    def run(self) -> int:
        """Boots, runs the command, tears down; returns the command's exit status."""
        version = kernel_version()
        tree = kernel_tree(version)
        archive = initramfs(tree, version)
        runs = CACHE / "runs"
        runs.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=runs) as folder:
            self.folder = Path(folder)
            exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in self.env.items())
            (self.folder / "job.sh").write_text(f"{exports}cd {shlex.quote(str(ROOT))} || exit 126\n{self.command}\n")
            try:
                return self._boot(tree, version, archive)
            finally:  # the results (console.log, setup.log, what the command wrote to RADIO_RESULTS) stay
                last = CACHE / "last-run"
                shutil.rmtree(last, ignore_errors=True)
                shutil.copytree(self.folder, last)

    def _boot(self, tree: Path, version: str, archive: Path) -> int:
        pipes = {name: os.pipe() for name in ("stdout", "stderr", "control")}
        argv = ["qemu-system-x86_64", "-machine", "q35", *accelerator(), "-m", self.memory, "-smp", "2",
                "-nodefaults", "-nographic", "-no-reboot", "-net", "none",
                "-kernel", str(tree / "boot" / f"vmlinuz-{version}"), "-initrd", str(archive),
                "-append", " ".join(["console=ttyS0", "quiet", "panic=-1", f"RADIO_STAGE2={HERE / 'inside.sh'}",
                                     f"RADIO_SETUP={HERE / 'air.sh'}", f"RADIO_RADIOS={self.radios}",
                                     f"RADIO_MODULES={tree / 'lib' / 'modules' / version}"]),
                "-serial", f"file:{self.folder / 'console.log'}",
                "-fsdev", "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap",
                "-device", "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot",
                "-fsdev", f"local,id=results,path={self.folder},security_model=none",
                "-device", "virtio-9p-pci,fsdev=results,mount_tag=results",
                "-device", "virtio-serial-pci"]
        for index, (name, (_, write)) in enumerate(pipes.items(), start=1):
            argv += ["-add-fd", f"fd={write},set={index}",
                     "-chardev", f"file,id={name},path=/dev/fdset/{index},append=on",  # O_TRUNC fails on an fd set
                     "-device", f"virtserialport,chardev={name},name={name}"]
        started = time.monotonic()
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   pass_fds=[write for _, write in pipes.values()], preexec_fn=_die_with_parent)
        for _, write in pipes.values():
            os.close(write)
        pumps = [threading.Thread(target=_pump, args=(pipes[name][0], stream.buffer), daemon=True)
                 for name, stream in (("stdout", sys.stdout), ("stderr", sys.stderr))]
        for pump in pumps:
            pump.start()
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            self._follow(os.fdopen(pipes["control"][0], "r"), started)
            process.wait(timeout=max(1.0, started + self.timeout + 60 - time.monotonic()))
        except BaseException:
            process.kill()
            process.wait()
            raise
        finally:
            signal.signal(signal.SIGTERM, previous)
            if process.poll() is None:
                process.kill()
                process.wait()
            for pump in pumps:
                pump.join(timeout=5)
        status_file = self.folder / "status"
        if self.status is None and status_file.exists():  # the control line was lost in the power-off
            self.status = int(status_file.read_text())
            print(f"radio-guest: command exited {self.status} (from the results share)", file=sys.stderr)
        if self.status is None:
            log = self.folder / "console.log"
            console = log.read_text(errors="replace")[-3000:] if log.exists() else "(none)"
            qemu = process.stderr.read().decode(errors="replace")
            raise GuestError(f"the guest ended without the command's status (qemu {process.returncode}): {qemu}\n"
                             f"console:\n{console}\nsetup: {self._setup_log()}")
        return self.status

    def _follow(self, control, started: float) -> None:
        """Reads the control lines until the command's status, within the timeout."""
        timer = threading.Timer(self.timeout, lambda: os.kill(os.getpid(), signal.SIGALRM))
        previous = signal.signal(signal.SIGALRM, _raise_timeout)
        timer.start()
        try:
            for line in control:
                word, _, value = line.strip().partition(" ")
                elapsed = time.monotonic() - started
                if word == "booted":
                    self.booted = elapsed
                    print(f"radio-guest: booted in {elapsed:.1f} s (guest uptime {value} s)", file=sys.stderr)
                elif word == "ready":
                    self.ready = elapsed
                    print(f"radio-guest: air ready after {elapsed:.1f} s", file=sys.stderr)
                elif word == "status":
                    self.status = int(value)
                    print(f"radio-guest: command exited {value} after {elapsed:.1f} s", file=sys.stderr)
                    return
        finally:
            timer.cancel()
            signal.signal(signal.SIGALRM, previous)

    def _setup_log(self) -> str:
        path = self.folder / "setup.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else "(none)"


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _raise_timeout(signum, frame) -> None:
    raise TimeoutError("the radio guest's command did not finish within its timeout")


def main() -> int:
    parser = argparse.ArgumentParser(prog="radio-guest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=1800, help="seconds before the guest is killed")
    parser.add_argument("--radios", type=int, default=10, help="mac80211_hwsim radios (wlan0…)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="exported to the command")
    parser.add_argument("command", nargs="+", help="run with sh -c in the repository's root inside the guest")
    arguments = parser.parse_args()
    env = dict(item.split("=", 1) for item in arguments.env)
    command = arguments.command[0] if len(arguments.command) == 1 else shlex.join(arguments.command)
    try:
        return Guest(command, radios=arguments.radios, timeout=arguments.timeout, env=env).run()
    except (GuestError, TimeoutError) as error:
        print(f"radio-guest: {error}", file=sys.stderr)
        return 124 if isinstance(error, TimeoutError) else 125
    except KeyboardInterrupt:
        print("radio-guest: interrupted; the guest is gone", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
