"""Filter groups of the seeded contact list: flat list, one group, and PUT of the group's own Operator.

Spec 4.6: the PUT cannot change subgroups or filters; sending them back unchanged is accepted.
"""

from __future__ import annotations

import pytest

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
GROUP_FIELDS = {"Id", "AccountId", "ContactListId", "ParentId", "Operator", "Filters", "Groups"}
FILTER_FIELDS = {"Id", "AccountId", "GroupId", "FilterTypeId", "OperandId", "Operation", "Value"}


def groups(emu, list_id: int = 4001) -> str:
    return emu.at(f"/contactlist/{list_id}/group")


def test_flat_list_of_every_group(emu):
    response = emu.api("GET", groups(emu))
    assert response.status_code == 200
    root, sub = response.json()
    assert set(root) == GROUP_FIELDS and set(sub) == GROUP_FIELDS
    assert (root["Id"], root["ParentId"], root["Operator"], root["ContactListId"]) == (4101, None, "AND", 4001)
    [root_filter] = root["Filters"]
    assert set(root_filter) == FILTER_FIELDS
    assert root_filter == {
        "Id": 4201,
        "AccountId": emu.account,
        "GroupId": 4101,
        "FilterTypeId": 2,
        "OperandId": 1,
        "Operation": "=",
        "Value": "1",
    }
    assert root["Groups"] == [sub]
    assert (sub["Id"], sub["ParentId"], sub["Operator"], sub["Groups"]) == (4102, 4101, "OR", [])
    assert [f["GroupId"] for f in sub["Filters"]] == [4102, 4102]


def test_get_one_group(emu):
    sub = emu.api("GET", f"{groups(emu)}/4102").json()
    assert (sub["Id"], sub["Operator"], len(sub["Filters"])) == (4102, "OR", 2)


def test_put_changes_the_operator(emu):
    response = emu.api("PUT", f"{groups(emu)}/4102", json={"Operator": "AND", "Id": 1, "ParentId": None})
    assert response.status_code == 200
    assert (response.json()["Id"], response.json()["Operator"], response.json()["ParentId"]) == (4102, "AND", 4101)
    root = emu.api("GET", f"{groups(emu)}/4101").json()
    assert root["Groups"][0]["Operator"] == "AND"
    assert emu.api("PUT", f"{groups(emu)}/4101", json={}).json() == root


@pytest.mark.parametrize(
    ("body", "code", "prop"),
    [
        ({"Operator": "XOR"}, PROPERTY_INVALID_VALUE, "Operator"),
        ({"Operator": ""}, PROPERTY_REQUIRED, "Operator"),
        ({"Operator": None}, PROPERTY_REQUIRED, "Operator"),
        ({"Operator": 1}, PROPERTY_INVALID_VALUE, "Operator"),
        ({"Operator": "OR", "Groups": []}, PROPERTY_INVALID_VALUE, "Groups"),
        ({"FILTERS": [{"FilterTypeId": 2}]}, PROPERTY_INVALID_VALUE, "Filters"),
    ],
)
@DEPARTS
def test_put_validation(emu, body, code, prop):
    assert emu.error(emu.api("PUT", f"{groups(emu)}/4101", json=body)) == (code, prop, "FilterGroup")
    assert emu.api("GET", f"{groups(emu)}/4101").json()["Operator"] == "AND"


@pytest.mark.parametrize(
    ("body", "prop", "operator"), [({"filters": None}, "Filters", "AND"), ({"operator": "OR"}, "Operator", "OR")]
)
@DEPARTS
def test_names_in_another_case_are_read_and_recorded_and_refused_when_strict(emu, strict_emu, body, prop, operator):
    assert emu.api("PUT", f"{groups(emu)}/4101", json=body).json()["Operator"] == operator
    assert emu.violations() == [(f"/api/v2.1{groups(emu)}/4101", prop, "property-case")]
    refused = strict_emu.api("PUT", f"{groups(strict_emu)}/4101", json=body)
    assert strict_emu.error(refused) == (PROPERTY_INVALID_VALUE, prop, "FilterGroup")


@DEPARTS
def test_unchanged_subgroups_are_recognised_whatever_the_case_of_their_names(emu):
    root = emu.api("GET", f"{groups(emu)}/4101").json()
    lower = {key.lower(): value for key, value in root.items()}
    lower["groups"] = [{key.lower(): value for key, value in group.items()} for group in root["Groups"]]
    assert emu.api("PUT", f"{groups(emu)}/4101", json={**lower, "operator": "OR"}).json()["Operator"] == "OR"


def test_changed_subgroups_and_filters_are_refused_with_a_pointer_to_the_contact_list(emu):
    response = emu.api("PUT", f"{groups(emu)}/4101", json={"Operator": "OR", "Groups": [], "Filters": []})
    assert response.status_code == 400
    errors = response.json()
    assert [e["PropertyName"] for e in errors] == ["Groups", "Filters"]
    assert all("contact list endpoint" in e["ErrorMessage"] for e in errors)


def test_unknown_list_or_group_is_404(emu):
    assert emu.error(emu.api("GET", groups(emu, 999)), 404)[2] == "ContactList"
    assert emu.error(emu.api("GET", f"{groups(emu, 999)}/4101"), 404)[2] == "ContactList"
    assert emu.error(emu.api("GET", f"{groups(emu)}/999"), 404)[2] == "FilterGroup"
    assert emu.error(emu.api("PUT", f"{groups(emu)}/999", json={"Operator": "OR"}), 404)[2] == "FilterGroup"
    assert emu.error(emu.api("GET", f"{groups(emu)}/x"), 404)[2] == "FilterGroup"
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    assert emu.error(emu.api("GET", f"/account/{other['account_id']}/contactlist/4001/group"), 404)[2] == "Account"


def test_put_of_the_body_get_answered_is_accepted(emu):
    for group_id in (4101, 4102):
        read = emu.api("GET", f"{groups(emu)}/{group_id}").json()
        response = emu.api("PUT", f"{groups(emu)}/{group_id}", json=read)
        assert (response.status_code, response.json()) == (200, read)


def test_put_of_the_read_body_may_change_the_operator(emu):
    read = emu.api("GET", f"{groups(emu)}/4101").json()
    response = emu.api("PUT", f"{groups(emu)}/4101", json={**read, "Operator": "OR"})
    assert response.status_code == 200
    assert response.json() == {**read, "Operator": "OR"}


def test_unchanged_is_judged_by_meaning(emu):
    read = emu.api("GET", f"{groups(emu)}/4102").json()
    first, second = read["Filters"]
    reordered = [second, {k: v for k, v in first.items() if k != "AccountId"} | {"DynamicValue": None}]
    response = emu.api("PUT", f"{groups(emu)}/4102", json={"Filters": reordered, "Groups": None})
    assert (response.status_code, response.json()["Filters"]) == (200, read["Filters"])


def _root(emu):
    return emu.api("GET", f"{groups(emu)}/4101").json()


@pytest.mark.parametrize(
    ("change", "prop", "where"),
    [
        (lambda g: g["Filters"][0].update(Value="2"), "Filters", "Filters[0].Value"),
        (lambda g: g["Filters"][0].update(FilterTypeId=True), "Filters", "Filters[0].FilterTypeId"),
        (lambda g: g["Filters"][0].update(Value=None), "Filters", "Filters[0].Value"),
        (lambda g: g["Filters"][0].update(OperandFunction="LOWER"), "Filters", "Filters[0].OperandFunction"),
        (lambda g: g["Filters"][0].pop("Id"), "Filters", "Filters[0]"),
        (lambda g: g["Filters"].append(dict(g["Filters"][0])), "Filters", "Filters holds 2"),
        (lambda g: g["Groups"][0].update(Operator="AND"), "Groups", "Groups[0].Operator"),
        (lambda g: g["Groups"][0]["Filters"].pop(), "Groups", "Groups[0].Filters holds 1"),
        (lambda g: g["Groups"][0]["Filters"][1].update(Id=4201), "Groups", "Groups[0].Filters[1]"),
        (lambda g: g.update(Groups={}), "Groups", "Groups is not a list"),
        (lambda g: g["Filters"][0].update(Id=[4201]), "Filters", "Filters[0] is not one of the stored items"),
    ],
)
def test_put_that_would_change_subgroups_or_filters_is_400(emu, change, prop, where):
    body = _root(emu)
    change(body)
    response = emu.api("PUT", f"{groups(emu)}/4101", json=body)
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, prop, "FilterGroup")
    assert where in response.json()[0]["ErrorMessage"]
    assert _root(emu)["Operator"] == "AND"
    assert emu.api("GET", f"{groups(emu)}/4102").json()["Operator"] == "OR"
