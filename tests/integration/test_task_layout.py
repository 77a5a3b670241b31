# SPDX-License-Identifier: BSD-3-Clause
# A task is one folder (docs/architecture.md, "Adding a task"): its kernel
# registers itself there under the folder's name, the accelerator code and
# the device layer name no task or kernel, and apps have one home. Reads
# the sources only; needs no build.
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "lib/task"


def code(path):
    """The file without its comments, so prose may name tasks."""
    text = path.read_text()
    if path.suffix == ".build":
        return re.sub(r"#[^\n]*", "", text)
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def kernels():
    return sorted(p.parent.name for p in TASKS.glob("*/*.cu"))


def test_each_kernel_registers_in_its_task_folder():
    names = kernels()
    assert {"aes_ctr", "aes_cbc", "md5", "dpi", "ldpc"} <= set(names)
    for name in names:
        folder = TASKS / name
        text = code(folder / f"{name}.cu")
        assert re.search(r"\bHPK_(AES_)?KERNEL(_REGISTER)?\(", text), name
        assert f'"{name}"' in text, f"{name}.cu does not register the name {name}"
        build = code(folder / "meson.build")
        assert f"'{name}': meson.current_source_dir()" in build, name
        # the task that offloads to it names it there too
        assert any(f'.offload = "{name}"' in code(c) for c in folder.glob("*.c")), name


def test_accelerator_and_device_code_name_no_task():
    files = [ROOT / "gpu/hp_cuda_plugin.c", ROOT / "gpu/meson.build"]
    files += sorted((ROOT / "gpu").glob("hpk*.cu")) + sorted((ROOT / "gpu").glob("hpk*.h"))
    files += sorted((ROOT / "gpu").glob("hpk*.cuh"))
    files += sorted((ROOT / "lib/device").glob("*.[ch]"))
    files = [f for f in files if f.name != "hpk_test_util.h"]
    names = kernels() + ["dpi_ac", "null"]
    for f in files:
        text = code(f)
        for n in names:
            assert f'"{n}"' not in text and f"'{n}'" not in text, f"{f} names {n}"
        assert "enum hpk_op" not in text and "HP_OFFLOAD_" not in text, f


def test_apps_have_one_home():
    homes = [p for p in (ROOT / "lib").rglob("*.c")
             if re.search(r"\bHP_APP_REGISTER\(|\bhp_app_register\(&", code(p))]
    assert [p.relative_to(ROOT).as_posix() for p in homes] == ["lib/task/hp_apps.c"]
