@AC-9
Feature: AC-9 A call changes nothing
  The tool is read-only. Whatever the call and whatever its outcome, the conversation file
  keeps its bytes, size, modification time and change time (so hasUnread and updated are
  untouched), nothing is created, removed or renamed in the sessions directory, and the
  conversation's running-state folder is left alone. That holds for files of every shape (an
  old file is never migrated on read), for entries that exist only during a call (a lock or
  temporary file), and after the call (a debounced save that lands later is the call's write).

  Background:
    Given a conversation "alpha" with the messages:
      | role      | content      |
      | user      | please fix   |
      | assistant | done         |
      | user      | thanks       |
    And conversation "alpha" is marked unread
    And conversation "alpha" has a running-state folder
    And a conversation "old" in an old shape with the messages:
      | role      | content        |
      | user      | 旧的需求：导出 CSV |
      | assistant | 好的           |
    And a snapshot of the sessions directory
    And the sessions directory is watched

  @RO-1 @RO-2
  Scenario: A successful call changes nothing
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result has:
      | field         | value |
      | returnedCount | 2     |
    And the sessions directory is unchanged since the snapshot
    And no entry came and went in the sessions directory during the calls
    And the sessions directory is still unchanged after a settle delay

  @RO-1 @RO-2
  Scenario: A call by the source conversation changes nothing
    Given the source conversation is "alpha"
    When I call the tool with no arguments
    Then the result has:
      | field         | value |
      | returnedCount | 2     |
    And the sessions directory is unchanged since the snapshot
    And no entry came and went in the sessions directory during the calls

  @RO-1 @RO-2
  Scenario Outline: Failing calls change nothing either
    When I call the tool with arguments:
      """
      <arguments>
      """
    Then the error code is "<code>"
    And the sessions directory is unchanged since the snapshot
    And no entry came and went in the sessions directory during the calls

    Examples:
      | arguments                                   | code                    |
      | {"conversationId": "{alpha}", "limit": 0}   | invalid_arguments       |
      | {"conversationId": "!!"}                    | invalid_conversation_id |
      | {"conversationId": "{alpha}-x"}             | conversation_not_found  |

  @RO-1
  Scenario: Many calls in a row change nothing
    When I call the tool 5 times with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 3}
      """
    Then the sessions directory is unchanged since the snapshot
    And no entry came and went in the sessions directory during the calls

  @RO-1 @RO-2
  Scenario: A file of an older shape is read, never migrated
    When I call the tool with arguments:
      """
      {"conversationId": "{old}"}
      """
    Then the item contents are:
      | content        |
      | 旧的需求：导出 CSV |
    And the sessions directory is unchanged since the snapshot
    And no entry came and went in the sessions directory during the calls
