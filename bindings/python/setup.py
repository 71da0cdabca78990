"""Builds the extension with the project's CMake (the C ABI, libidforge.so, and the pybind11
module over it) and puts both into the package folder, where the module finds the library
through its $ORIGIN run path. Needs the idforge source tree around this folder
(bindings/python of a checkout), CMake, Ninja, a C++20 compiler and idforge's build
dependencies (scripts/setup.sh installs them)."""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not (ROOT / "src" / "c" / "CMakeLists.txt").exists():
            raise RuntimeError(f"{ROOT} is not an idforge checkout: build from bindings/python "
                               "inside one")
        package_dir = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build = Path(self.build_temp).resolve() / "cmake"
        off = ["TESTS", "BENCH", "CLI", "SERVER", "LAB", "TICKET", "NODE"]
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                     "-DCMAKE_BUILD_TYPE=Release", "-DIDFORGE_BUILD_COORD=ON",
                     "-DIDFORGE_BUILD_C=ON", "-DIDFORGE_BUILD_PYTHON=ON",
                     f"-DPython3_EXECUTABLE={sys.executable}",
                     f"-DIDFORGE_PYTHON_INSTALL_DIR={package_dir.parent}"]
        configure += [f"-DIDFORGE_BUILD_{part}=OFF" for part in off]
        jobs = os.environ.get("IDFORGE_JOBS", str(os.cpu_count() or 2))
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "-j", jobs, "--target", "idforge_python"],
                       check=True)
        subprocess.run(["cmake", "--install", str(build), "--component", "python"], check=True)


setup(
    packages=["idforge"],
    package_data={"idforge": ["py.typed", "*.pyi"]},
    ext_modules=[CMakeExtension("idforge._idforge")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
