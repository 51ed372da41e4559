@PLACEMENT
Feature: Where the result object is placed
  The success or error object travels as structuredContent, as the JSON text of a text
  content block, or both (recommended). Text blocks that are not JSON objects may stand
  beside it, but every text block that is a JSON object must equal every other one and
  structuredContent.

  Background:
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"

  @PLC-1 @PLC-2
  Scenario Outline: The result object is found where the contract allows and is consistent
    When I call the tool with arguments:
      """
      <arguments>
      """
    Then the result object is placed as the contract allows

    Examples:
      | arguments                     |
      | {"conversationId": "{alpha}"} |
      | {"limit": 0}                  |

  @PLC-3 @should
  Scenario Outline: The result object is both structured content and JSON text
    When I call the tool with arguments:
      """
      <arguments>
      """
    Then the result object is both structured content and the JSON text of a text block

    Examples:
      | arguments                     |
      | {"conversationId": "{alpha}"} |
      | {"conversationId": "!!"}      |
