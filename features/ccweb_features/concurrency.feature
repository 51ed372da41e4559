@AC-2
Feature: Calls in flight at once each get their own answer
  cc-web's main process runs one MCP server for every agent, so calls from several
  conversations reach it at the same time, and a stdio client may send the next request
  before the last answer came. Each answer depends on its own request only: the source
  header or variable it came with and the conversationId it names. Nothing of one request
  may leak into another, and the source is read from each request, not once per session.

  Background:
    Given the conversations "north", "south", "east" and "west" each hold one user message, their own name

  @CON-1
  Scenario: Four agents calling at once each read their own source conversation
    When each of them is the source of an agent calling the tool 10 times, all agents at once
    Then every answer is the conversation its request named

  @CON-1
  Scenario: Pipelined calls naming different conversations each read the one they name
    When I send 16 calls on one connection before reading any answer, naming them in turn
    Then every answer is the conversation its request named

  @CON-1
  Scenario: A source header that changes between requests of one HTTP session is honoured
    When on one HTTP session I call the tool while the source header names "north", "south", "east" and "north" in turn
    Then every answer is the conversation its request named
