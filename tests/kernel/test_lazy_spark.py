"""A real PySpark DataFrame in a local SparkSession is described by its schema, never counted.

One small module: the session takes seconds to start (Java; tests/run.sh installs it when missing).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from twnb.kernel import summarize_namespace

pytest.importorskip("pyspark")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        problem = "Spark needs Java: tests/run.sh installs openjdk-17-jre-headless through apt"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"the Spark tests cannot run under CI=true: {problem}", pytrace=False)
        pytest.skip(problem)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[1]")
        .appName("twnb-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    yield session
    session.stop()


def _marked(counter: str):
    def mark(value):  # no hints: Spark reads them as a pandas UDF type
        with open(counter, "a") as file:
            file.write("computed\n")
        return value

    return mark


def test_a_spark_frame_shows_its_schema_and_is_never_computed(spark, tmp_path: Path):
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType

    counter = tmp_path / "counter"
    marked = F.udf(_marked(str(counter)), LongType())
    frame = spark.range(1000).withColumn("marked", marked("id")).withColumn("label", F.lit("x"))
    summary = summarize_namespace({"frame": frame})  # the default per-object time budget
    assert (
        "- frame: pyspark.DataFrame (lazy: not computed); columns: id (bigint), marked (bigint), "
        "label (string)"
    ) in summary
    assert not counter.exists()
    frame.limit(3).collect()
    assert counter.exists()
