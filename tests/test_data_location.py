import pytest

from medvigil.data_location import DataNotFoundError, resolve_data_location


def test_env_folder_with_card(tmp_path):
    (tmp_path / "README.md").write_text("---\n---\n")
    assert resolve_data_location({"MEDVIGIL_DATA": str(tmp_path)}) == str(tmp_path.resolve())


def test_env_folder_without_card_says_what_to_run(tmp_path):
    with pytest.raises(DataNotFoundError, match="medvigil build"):
        resolve_data_location({"MEDVIGIL_DATA": str(tmp_path)})


def test_env_hub_repo_id_passes_through(tmp_path):
    assert resolve_data_location({"MEDVIGIL_DATA": "someorg/medvigil-synthetic", "MEDVIGIL_HOME": str(tmp_path)}) == "someorg/medvigil-synthetic"


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
