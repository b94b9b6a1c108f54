import pytest

from medvigil.data_location import DataNotFoundError, resolve_data_location


def test_env_folder_with_card(tmp_path):
    (tmp_path / "README.md").write_text("---\n---\n")
    assert resolve_data_location({"MEDVIGIL_DATA": str(tmp_path)}) == str(tmp_path.resolve())


def test_env_folder_without_card_says_what_to_run(tmp_path):
    with pytest.raises(DataNotFoundError, match="medvigil build"):
        resolve_data_location({"MEDVIGIL_DATA": str(tmp_path)})


def test_env_hub_repo_id_passes_through(tmp_path):
    assert (
        resolve_data_location(
            {"MEDVIGIL_DATA": "someorg/medvigil-synthetic", "MEDVIGIL_HOME": str(tmp_path)}
        )
        == "someorg/medvigil-synthetic"
    )


def test_default_build_dir(tmp_path):
    with pytest.raises(DataNotFoundError, match="not set"):
        resolve_data_location({"MEDVIGIL_HOME": str(tmp_path)})
    build = tmp_path / "datasets" / "medvigil"
    build.mkdir(parents=True)
    (build / "README.md").write_text("---\n---\n")
    assert resolve_data_location({"MEDVIGIL_HOME": str(tmp_path)}) == str(build)


@pytest.mark.parametrize("value", ["../x", "not a repo", "/nonexistent/path"])
def test_garbage_values_rejected(value, tmp_path):
    with pytest.raises(DataNotFoundError):
        resolve_data_location({"MEDVIGIL_DATA": value, "MEDVIGIL_HOME": str(tmp_path)})


def test_release_folder_is_not_a_build(tmp_path):
    (tmp_path / "manifest.csv").write_text("case_id\n")
    (tmp_path / "README.md").write_text("# a release\n")
    with pytest.raises(
        DataNotFoundError, match=r"is a release folder \(it has manifest.csv\), not a built dataset"
    ):
        resolve_data_location({"MEDVIGIL_DATA": str(tmp_path)})


def test_load_config_ends_the_run_with_the_fix(tmp_path):
    from medvigil.data_location import DataLocationExit, load_config

    (tmp_path / "README.md").write_text("---\n---\n")
    (tmp_path / "data" / "default").mkdir(parents=True)
    with pytest.raises(DataLocationExit) as exit_:
        load_config("mcq", env={"MEDVIGIL_DATA": str(tmp_path)})
    assert isinstance(exit_.value, SystemExit) and not isinstance(
        exit_.value, Exception
    )  # not retried by tenacity
    assert "holds no 'mcq' config (it has: default)" in str(exit_.value.code)
    with pytest.raises(DataLocationExit, match="medvigil build"):
        load_config("mcq", env={"MEDVIGIL_DATA": str(tmp_path / "missing")})
