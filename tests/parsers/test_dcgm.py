"""dcgmi health -c -j: the JSON tree, and the plain error lines."""

# ruff: noqa: E501  (literal tool output keeps its real line lengths)

from __future__ import annotations

from tools.parsers.dcgm import parse_dcgm_health

FAILURE = """\
{
   "body" : {
      "GPU" : {
         "children" : {
            "0" : {
               "children" : {
                  "Errors" : {
                     "children" : {
                        "PCIe system" : {
                           "overflow" : [ "Detected more than 8 PCIe replays per minute for", "GPU 0 : 12 replays" ],
                           "value" : "Warning"
                        }
                     }
                  }
               },
               "value" : "Warning"
            },
            "1" : {
               "children" : {
                  "Errors" : {
                     "children" : {
                        "Memory system" : {
                           "overflow" : [ "A volatile double-bit ECC error has occurred on GPU", "1." ],
                           "value" : "Failure"
                        }
                     }
                  }
               },
               "value" : "Failure"
            }
         }
      },
      "Overall Health" : {
         "value" : "Failure"
      }
   },
   "header" : [ "Health Monitor Report" ]
}
"""


def test_failure_with_incidents_per_gpu() -> None:
    health = parse_dcgm_health(FAILURE)
    assert health.state == "ok"
    assert health.overall == "Failure"
    assert [(e.id, e.health) for e in health.entities] == [("0", "Warning"), ("1", "Failure")]
    memory = health.incidents[1]
    assert (memory.entity_group, memory.entity_id, memory.system, memory.health) == (
        "GPU",
        "1",
        "Memory system",
        "Failure",
    )
    assert memory.message == "A volatile double-bit ECC error has occurred on GPU 1."
    assert memory.label == "GPU 1 Memory system: Failure"


def test_healthy_has_no_incidents() -> None:
    text = '{\n   "body" : {\n      "Overall Health" : {\n         "value" : "Healthy"\n      }\n   },\n   "header" : [ "Health Monitor Report" ]\n}\n'
    health = parse_dcgm_health(text)
    assert (health.state, health.overall, health.incidents) == ("ok", "Healthy", ())


def test_error_states() -> None:
    assert parse_dcgm_health("bash: line 1: dcgmi: command not found\n").state == "not-installed"
    assert (
        parse_dcgm_health("Error: Health watches not enabled. Please enable watches. \n").state
        == "no-watches"
    )
    engine = parse_dcgm_health(
        "Error: unable to establish a connection to the specified host: localhost\n"
    )
    assert engine.state == "error"
    assert engine.error is not None
    assert parse_dcgm_health("").state == "unparsed"
